// The dashboard's live request log (SPEC §11): the last requests of each key, as the request
// log lines of SPEC §7 report them, kept in memory. Per key, so that one key's flood never
// pushes another's requests out.
import type { LoggedRequest, LogSink } from '../config.js';

/** One request as the page shows it. Never a token, a link secret or a cookie. */
export interface HistoryRow {
  /** Increases with every request kept: the page asks for the rows after the last it has. */
  seq: number;
  time: string;
  request_id: string;
  via: string;
  key: string;
  command: string;
  status: number;
  duration_ms: number;
}

/** Requests kept per key. */
const PER_KEY = 200;
/** Rows in one answer: as many as the page keeps (src/ui/requests.ts). */
export const ROWS_PER_ANSWER = 500;
/** Keys kept at once; past it, the key heard from least recently is forgotten. */
const MAX_KEYS = 5_000;

/**
 * A kept request: the row less its time, which stays a number until a page asks (formatting a
 * date for every request of a flood nobody looks at cost 3% of a proxied request).
 */
type KeptRow = Omit<HistoryRow, 'time'> & { at: number };

/** Requests by key fingerprint, newest last. */
export class RequestHistory {
  readonly #byKey = new Map<string, KeptRow[]>();
  #seq = 0;
  /** The key heard from last: already at the end of the map's order. */
  #lastKey: string | null = null;

  /** `log`, also keeping each request line's request (requests before authentication aside). */
  tap(log: LogSink): LogSink {
    return (line, level, request) => {
      if (request !== undefined) this.#keep(request);
      log(line, level);
    };
  }

  #keep({ entry, at }: LoggedRequest): void {
    if (entry.fingerprint === '-') return;
    const key = entry.fingerprint;
    let rows = this.#byKey.get(key);
    if (rows === undefined) {
      if (this.#byKey.size >= MAX_KEYS) this.#byKey.delete(this.#byKey.keys().next().value!);
      rows = [];
      this.#byKey.set(key, rows);
    } else if (key !== this.#lastKey) {
      // Re-inserted: the map's order is then the order keys were last heard from (a flood of
      // one key is already at the end, and stays there without the move).
      this.#byKey.delete(key);
      this.#byKey.set(key, rows);
    }
    this.#lastKey = key;
    rows.push({
      seq: ++this.#seq,
      at,
      request_id: entry.requestId,
      via: entry.via,
      key: entry.fingerprint,
      command: entry.path,
      status: entry.status,
      duration_ms: Math.round(entry.durationMs * 10) / 10,
    });
    if (rows.length > PER_KEY) rows.shift();
  }

  /**
   * The newest `limit` kept requests of `fingerprints` after `sinceSeq`, oldest first: an
   * account with thousands of keys gets a page's worth, not every row it has.
   */
  rowsOf(fingerprints: readonly string[], sinceSeq: number, limit = ROWS_PER_ANSWER): HistoryRow[] {
    return fingerprints
      .flatMap((fp) => this.#byKey.get(fp) ?? [])
      .filter((row) => row.seq > sinceSeq)
      .sort((a, b) => a.seq - b.seq)
      .slice(-limit)
      .map(({ seq, at, ...rest }) => ({ seq, time: new Date(at).toISOString(), ...rest }));
  }
}
