// The disk copies (`cp`) a runtime has under way, by the disk folders they read and write, so
// that nothing pulls a disk from under a copy: `rm` of either VM aborts the copy and waits for
// it to end (its source thawed, its half-made disk gone) before it stops anything; a restart
// or resize waits for the copy to finish. Copies of one source run one after another: each
// freezes the source, and a second freeze (refused) must never thaw the first's.

interface Copy {
  readonly from: string;
  readonly to: string;
  readonly controller: AbortController;
  ended: Promise<void>;
}

export class CopiesUnderWay {
  private readonly copies = new Set<Copy>();

  /**
   * Runs `copy` of the disk `from` into `to` (resolved disk folders) once no earlier copy of
   * `from` is under way; `signal` aborts it (its reason is what the copy rejects with).
   */
  run(from: string, to: string, copy: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const earlier = [...this.copies].filter((c) => c.from === from);
    const entry: Copy = { from, to, controller: new AbortController(), ended: Promise.resolve() };
    const { signal } = entry.controller;
    entry.ended = (async () => {
      try {
        await Promise.allSettled(earlier.map((c) => c.ended));
        signal.throwIfAborted();
        await copy(signal);
      } finally {
        this.copies.delete(entry);
      }
    })();
    this.copies.add(entry);
    return entry.ended;
  }

  /** Aborts every copy from or to `disk` (every copy when undefined) with `reason`, and waits for their ends. */
  async abort(disk: string | undefined, reason: Error): Promise<void> {
    for (const copy of this.involving(disk)) copy.controller.abort(reason);
    await this.ended(disk);
  }

  /** Resolves once no copy from or to `disk` is under way (every copy when undefined). */
  async ended(disk: string | undefined): Promise<void> {
    for (let now = this.involving(disk); now.length > 0; now = this.involving(disk)) {
      await Promise.allSettled(now.map((copy) => copy.ended));
    }
  }

  private involving(disk: string | undefined): Copy[] {
    return [...this.copies].filter((c) => disk === undefined || c.from === disk || c.to === disk);
  }
}
