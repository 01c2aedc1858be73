// The SSH sessions open in each VM (SPEC §6a), so that `rm` and `restart` end them: a session
// whose processes the runtime kills would end anyway, but one blocked on its client (a full
// window, a forwarded stdin) must be hung up too, in every runtime alike. While one of them is
// under way the VM takes no new session, command or connection: one started in the meantime
// would outlive it, or boot the VM again under the removal.

/** Hangs up the sessions of one VM together. */
export class OpenSessions {
  readonly #byVm = new Map<number, Set<AbortController>>();
  /** VMs being removed or restarted: why they take no session, and how many such works run. */
  readonly #closing = new Map<number, { refusal: Error; works: number }>();

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

  /**
   * Hangs up every open session of the VM `vmId` with `reason`, then runs `work` (the removal or
   * restart), refusing new sessions with `refusal` until it settles.
   */
  async closeDuring<T>(
    vmId: number,
    reasons: { hangUp: Error; refusal: Error },
    work: () => Promise<T>,
  ): Promise<T> {
    const closing = this.#closing.get(vmId) ?? { refusal: reasons.refusal, works: 0 };
    closing.works += 1;
    this.#closing.set(vmId, closing);
    this.hangUp(vmId, reasons.hangUp);
    try {
      return await work();
    } finally {
      closing.works -= 1;
      if (closing.works === 0) this.#closing.delete(vmId);
    }
  }

  /**
   * Why the VM `vmId` takes no new session, command or connection now (being removed or
   * restarted), or undefined.
   */
  refusal(vmId: number): Error | undefined {
    return this.#closing.get(vmId)?.refusal;
  }
}
