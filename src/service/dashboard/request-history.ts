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
/** Keys kept at once; past it, the key heard from least recently is forgotten. */
const MAX_KEYS = 5_000;

/** Requests by key fingerprint, newest last. */
export class RequestHistory {
  readonly #byKey = new Map<string, HistoryRow[]>();
  #seq = 0;

  /** `log`, also keeping each request line's request (requests before authentication aside). */
  tap(log: LogSink): LogSink {
    return (line, level, request) => {
      if (request !== undefined) this.#keep(request);
      log(line, level);
    };
  }

  #keep({ entry, at }: LoggedRequest): void {
    if (entry.fingerprint === '-') return;
    let rows = this.#byKey.get(entry.fingerprint);
    if (rows === undefined) {
      if (this.#byKey.size >= MAX_KEYS) this.#byKey.delete(this.#byKey.keys().next().value!);
      rows = [];
    } else {
      // Re-inserted: the map's order is then the order keys were last heard from.
      this.#byKey.delete(entry.fingerprint);
    }
    this.#byKey.set(entry.fingerprint, rows);
    rows.push({
      seq: ++this.#seq,
      time: new Date(at).toISOString(),
      request_id: entry.requestId,
      via: entry.via,
      key: entry.fingerprint,
      command: entry.path,
      status: entry.status,
      duration_ms: Math.round(entry.durationMs * 10) / 10,
    });
    if (rows.length > PER_KEY) rows.shift();
  }

  /** The kept requests of `fingerprints` after `sinceSeq`, oldest first. */
  rowsOf(fingerprints: readonly string[], sinceSeq: number): HistoryRow[] {
    return fingerprints
      .flatMap((fp) => this.#byKey.get(fp) ?? [])
      .filter((row) => row.seq > sinceSeq)
      .sort((a, b) => a.seq - b.seq);
  }
}
