// The VM proxy's last admissions, by VM label and token: a client sends the same token to the
// same VM request after request, and while nothing in the store has changed the answer is the
// same, so the proxy takes it from here instead of asking the authenticator and the store again
// (about a sixth of a proxied request's own work, measured). What a fresh admission would still
// do differently (the token's time window, a connection refused before, the key's use, the rate
// limit) is done on every request all the same (proxy-auth.ts).
import type { VmRecord } from '../store/index.js';
import type { TokenCaller } from '../http/token-auth.js';

/** A request let in with a valid token, as it is remembered. */
export interface RememberedAdmission {
  vm: VmRecord;
  visitor: TokenCaller;
}

/** Admissions remembered at once; past it everything is forgotten (as the read cache does). */
const LIMIT = 1_000;

export class AdmissionMemo {
  /** By VM label, then by the exact token offered. */
  readonly #byLabel = new Map<string, Map<string, RememberedAdmission>>();
  #size = 0;
  /** The store's data generation the entries were worked out under. */
  #generation = -1;

  /** The admission remembered for `token` at `label`, if the store is still at `generation`. */
  get(label: string, token: string, generation: number): RememberedAdmission | undefined {
    if (generation !== this.#generation) {
      this.#forget(generation);
      return undefined;
    }
    return this.#byLabel.get(label)?.get(token);
  }

  /** Remembers an admission worked out from reads made at `generation`. */
  set(label: string, token: string, generation: number, admission: RememberedAdmission): void {
    if (generation !== this.#generation || this.#size >= LIMIT) this.#forget(generation);
    let tokens = this.#byLabel.get(label);
    if (tokens === undefined) {
      tokens = new Map();
      this.#byLabel.set(label, tokens);
    }
    if (!tokens.has(token)) this.#size++;
    tokens.set(token, admission);
  }

  #forget(generation: number): void {
    this.#byLabel.clear();
    this.#size = 0;
    this.#generation = generation;
  }
}
