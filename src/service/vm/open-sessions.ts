// The SSH sessions open in each VM (SPEC §6a), so that `rm` and `restart` end them: a session
// whose processes the runtime kills would end anyway, but one blocked on its client (a full
// window, a forwarded stdin) must be hung up too, in every runtime alike.

/** Hangs up the sessions of one VM together. */
export class OpenSessions {
  readonly #byVm = new Map<number, Set<AbortController>>();

  /**
   * Registers a session of VM `vmId` that ends when `signal` aborts; the signal it is given
   * also aborts at {@link hangUp}. `closed` forgets it once it ended.
   */
  open(vmId: number, signal: AbortSignal, closed: Promise<unknown>): AbortSignal {
    const controller = new AbortController();
    const sessions = this.#byVm.get(vmId) ?? new Set<AbortController>();
    sessions.add(controller);
    this.#byVm.set(vmId, sessions);
    void closed
      .catch(() => {})
      .finally(() => {
        sessions.delete(controller);
        if (sessions.size === 0 && this.#byVm.get(vmId) === sessions) this.#byVm.delete(vmId);
      });
    return AbortSignal.any([signal, controller.signal]);
  }

  /** Hangs up every open session of the VM `vmId`. */
  hangUp(vmId: number, reason: Error): void {
    for (const controller of this.#byVm.get(vmId) ?? []) controller.abort(reason);
  }
}
