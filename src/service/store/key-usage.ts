import { writeTransaction, type StoreContext } from './context.js';

/**
 * Remembers when each key last signed a request, in memory, and writes those times in one
 * transaction at most once per `flushIntervalMs`, and whenever {@link flush} is called (the
 * store does on close).
 *
 * Why: every authenticated request uses a key; a durable write per request would put an fsync
 * on the hot path. The price is that `last_used_at` on disk may lag by up to one interval, and
 * a crash loses the unflushed times. That is acceptable because a key-use time is never an
 * acknowledged change. Reads through the store merge the buffered time in, so callers of the
 * same store always see the newest value.
 */
export class KeyUseBuffer {
  private pendingTimes = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly writeBatch: (batch: ReadonlyMap<string, string>) => void;

  constructor(
    ctx: StoreContext,
    private readonly flushIntervalMs: number,
  ) {
    // Never moves a time backwards: a late flush from a stale buffer cannot undo a newer one.
    const update = ctx.db.prepare<[string, string, string]>(
      `UPDATE ssh_keys SET last_used_at = ?
       WHERE fingerprint = ? AND (last_used_at IS NULL OR last_used_at < ?)`,
    );
    this.writeBatch = writeTransaction(ctx, (batch: ReadonlyMap<string, string>) => {
      for (const [fingerprint, at] of batch) update.run(at, fingerprint, at);
    });
  }

  /** Notes that `fingerprint` was used at `at` (an RFC 3339 timestamp). No I/O. */
  record(fingerprint: string, at: string): void {
    const known = this.pendingTimes.get(fingerprint);
    if (known === undefined || known < at) this.pendingTimes.set(fingerprint, at);
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flushFromTimer(), this.flushIntervalMs);
      // A pending key-use time must not keep the process alive; close() flushes it.
      this.timer.unref();
    }
  }

  /** The buffered, not yet written use time of `fingerprint`, if any. */
  pending(fingerprint: string): string | undefined {
    return this.pendingTimes.get(fingerprint);
  }

  /** Writes every buffered time now, in one transaction. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pendingTimes.size === 0) return;
    this.writeBatch(this.pendingTimes);
    // Cleared only after the commit: a failed write keeps the times for the next attempt.
    this.pendingTimes = new Map();
  }

  private flushFromTimer(): void {
    try {
      this.flush();
    } catch {
      // A timer has no caller to report to, and the lost value is not an acknowledged change:
      // keep the times (flush cleared nothing) and try again one interval later.
      this.timer = setTimeout(() => this.flushFromTimer(), this.flushIntervalMs);
      this.timer.unref();
    }
  }
}
