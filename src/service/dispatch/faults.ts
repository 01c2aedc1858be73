// Injected failures for testing clients' error handling (SPEC §10): a table of faults that the
// `/exec` path consults once a request's command is known. It exists only when whoever builds
// the service's config puts one there — the library's startServer does; `exectl serve` never
// does — and no command reads or changes it, so nobody can reach it over the network.
import { COMMAND_CATALOG } from '../../command-catalog.js';
import { codeForStatus, ExectlError, SERVICE_STATUSES } from '../../errors.js';

/** One fault, as `faults.add` takes it. */
export interface FaultSpec {
  /** The command path it applies to (`whoami`, `ssh-key list`, not `ssh web`), or `*` for all. */
  command: string;
  /** The status to answer with; absent, the request only waits `delayMs` and then runs. */
  status?: number;
  /** The error message sent (default: `injected fault`). A 500 always says `internal error`. */
  message?: string;
  /** Wait this long before failing (or running). */
  delayMs?: number;
  /** The chance, from 0 to 1, that a matching request is affected (default 1). */
  probability?: number;
  /** Affect this many matching requests, then vanish (default: every one, until `clear`). */
  times?: number;
}

interface Fault {
  spec: FaultSpec;
  remaining: number;
  error: ExectlError | undefined;
}

/** The faults of one service. */
export class FaultTable {
  #faults: Fault[] = [];

  /**
   * Adds a fault; the first fault added that matches a request applies to it.
   * @throws ExectlError `usage` for a command that is no command path (a fault that could
   * never apply), a status the service never answers, or a bad number.
   */
  add(spec: FaultSpec): void {
    const { command, status, probability = 1, times, delayMs = 0 } = spec;
    if (command !== '*' && !COMMAND_CATALOG.some((entry) => entry.path === command)) {
      throw new ExectlError(
        'usage',
        `fault command ${JSON.stringify(command)} is not a command path (such as "whoami" or "ssh-key list") or "*"`,
      );
    }
    let error: ExectlError | undefined;
    if (status !== undefined) {
      const code = codeForStatus(status);
      if (code === undefined) {
        const known = SERVICE_STATUSES.join(', ');
        throw new ExectlError('usage', `fault status ${status} is not one of ${known}`);
      }
      error = new ExectlError(code, spec.message ?? 'injected fault');
    }
    if (!(probability >= 0 && probability <= 1) || !(delayMs >= 0)) {
      throw new ExectlError('usage', 'fault probability must be 0 to 1 and delayMs at least 0');
    }
    if (times !== undefined && !(Number.isInteger(times) && times > 0)) {
      throw new ExectlError('usage', 'fault times must be a whole number above 0');
    }
    this.#faults.push({ spec, remaining: times ?? Infinity, error });
  }

  /** Removes every fault. */
  clear(): void {
    this.#faults = [];
  }

  /**
   * The fault for a request to `path`, counted as used: a promise that waits its delay and
   * then rejects with its error (or resolves, for a delay alone); undefined when none applies.
   */
  take(path: string): Promise<void> | undefined {
    const fault = this.#faults.find((f) => f.spec.command === path || f.spec.command === '*');
    if (fault === undefined) return undefined;
    if (Math.random() >= (fault.spec.probability ?? 1)) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.#faults = this.#faults.filter((f) => f !== fault);
    const { error } = fault;
    const delay = fault.spec.delayMs ?? 0;
    return new Promise((resolve, reject) => {
      const settle = () => (error === undefined ? resolve() : reject(error));
      if (delay === 0) settle();
      else setTimeout(settle, delay).unref();
    });
  }
}
