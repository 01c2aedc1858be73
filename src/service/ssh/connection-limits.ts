/**
 * How many connections the SSH listener holds, and for how long before they sign in (SPEC §7:
 * idle connections get "a cap per client address and in all, with short idle timeouts before
 * authentication"). Each connection costs a descriptor and buffers, and one that has not
 * signed in costs its peer nothing.
 */
export interface ConnectionLimits {
  /** Connections open at once, signed in or not. */
  maxConnections: number;
  /** The same, from one client address. */
  maxConnectionsPerAddress: number;
  /** Connections not signed in yet, at once (as sshd's MaxStartups). */
  maxUnauthenticated: number;
  /** The same, from one client address. */
  maxUnauthenticatedPerAddress: number;
  /**
   * Time from the connection to its authentication (sshd's LoginGraceTime): past it the
   * connection is cut, whether the client is in the middle of signing in or said nothing.
   */
  loginGraceMs: number;
}

/**
 * The limits `exectl serve` runs with (man/exectl-serve.1 lists them). Signing in takes a
 * real client well under a second, and even a hardware key waiting for a touch fits in 20 s;
 * sshd allows 10 unauthenticated connections before it starts refusing, and 100 in all.
 */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxConnections: 1000,
  maxConnectionsPerAddress: 100,
  maxUnauthenticated: 100,
  maxUnauthenticatedPerAddress: 10,
  loginGraceMs: 20_000,
};

/** One connection let in: it tells the gate when it signs in and when it is gone. */
export interface Admission {
  /** It signed in: it no longer counts as unauthenticated. Once; later calls do nothing. */
  authenticated(): void;
  /** It is gone. Once; later calls do nothing. */
  release(): void;
}

/** Counts the listener's connections, by address and in all, against {@link ConnectionLimits}. */
export class ConnectionGate {
  readonly #limits: ConnectionLimits;
  readonly #all = new Counter();
  readonly #unauthenticated = new Counter();

  constructor(limits: ConnectionLimits) {
    this.#limits = limits;
  }

  /** Lets a connection from `address` in, or says no (undefined) when a limit is reached. */
  admit(address: string): Admission | undefined {
    const limits = this.#limits;
    if (
      this.#all.total >= limits.maxConnections ||
      this.#all.at(address) >= limits.maxConnectionsPerAddress ||
      this.#unauthenticated.total >= limits.maxUnauthenticated ||
      this.#unauthenticated.at(address) >= limits.maxUnauthenticatedPerAddress
    ) {
      return undefined;
    }
    this.#all.add(address);
    this.#unauthenticated.add(address);
    let signedIn = false;
    let gone = false;
    return {
      authenticated: () => {
        if (signedIn || gone) return;
        signedIn = true;
        this.#unauthenticated.remove(address);
      },
      release: () => {
        if (gone) return;
        gone = true;
        this.#all.remove(address);
        if (!signedIn) this.#unauthenticated.remove(address);
      },
    };
  }
}

/** Connections per address, and their total; an address at zero is forgotten. */
class Counter {
  readonly #byAddress = new Map<string, number>();
  total = 0;

  at(address: string): number {
    return this.#byAddress.get(address) ?? 0;
  }

  add(address: string): void {
    this.#byAddress.set(address, this.at(address) + 1);
    this.total += 1;
  }

  remove(address: string): void {
    const left = this.at(address) - 1;
    if (left === 0) this.#byAddress.delete(address);
    else this.#byAddress.set(address, left);
    this.total -= 1;
  }
}
