// Turns for the system resolver. `dns.lookup` runs getaddrinfo on libuv's thread pool (4 threads
// by default), which every file operation of the server shares: a tenant whose integration
// target names a host on a nameserver it controls, and answers slowly, would otherwise hold all
// four with a handful of requests from its VM, stalling the disk watchdog, SQLite backups and
// every other tenant's lookups. At most MAX_SYSTEM_LOOKUPS run at once; the rest wait in order.

/** Lookups in flight at once: half the default pool, so file work always has threads left. */
export const MAX_SYSTEM_LOOKUPS = 2;

/** A first-come-first-served limit on concurrent tasks. */
export class Turns {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  /** Runs `task` once fewer than `max` others run; a finished task hands its turn on. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.max) this.running += 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.running -= 1;
      else next();
    }
  }
}

/** The one limit every integration lookup of this process shares. */
export const systemLookupTurns = new Turns(MAX_SYSTEM_LOOKUPS);
