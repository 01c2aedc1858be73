// One `/exec` request as `run` and `ssh` send it (SPEC §8): 429 answers are retried after
// their Retry-After, and connection failures are retried only for commands that change
// nothing; three tries in all. A command that changes state is never sent twice unless the
// server said 429, which it says before reading the command (SPEC §2 check order).
import { setTimeout as sleep } from 'node:timers/promises';
import { ExectlError } from '../../errors.js';
import type { PreparedLine } from '../../command-line.js';
import type { CliContext } from '../context.js';
import { postExec, WrongServiceError, type ExecOptions, type ExecResponse } from './http.js';
import { retryAfterSeconds } from './answer.js';
import { oneLine } from '../output.js';

const MAX_TRIES = 3;

/** Waits before the second and third try after a connection failure. */
const RECONNECT_DELAYS_MS = [250, 750] as const;

const MAYBE_RAN_HINT =
  'the command may have run: check (e.g. with `exectl run ls`) before running it again';

/** One request to send: where, with which token, and what to do with the answer as it comes. */
export interface ExecRequest {
  url: string;
  /** Where `url` came from (Settings.urlFrom), for the messages about a wrong URL. */
  urlFrom?: string;
  token: string;
  prepared: PreparedLine;
  onChunk?: ExecOptions['onChunk'];
  onHead?: ExecOptions['onHead'];
}

/**
 * Sends `request` and resolves with the first answer that is not a 429, or the third 429.
 * Each retry is announced on stderr (one line, unless `-q`).
 *
 * @throws ExectlError `unreachable` when the network fails on the last allowed try.
 */
export async function sendExec(ctx: CliContext, request: ExecRequest): Promise<ExecResponse> {
  const { url, token, prepared } = request;
  for (let attempt = 1; ; attempt++) {
    const last = attempt === MAX_TRIES;
    let response: ExecResponse;
    try {
      response = await postExec(url, token, prepared.line, {
        onChunk: request.onChunk,
        onHead: request.onHead,
        lostHint: prepared.repeatable ? undefined : MAYBE_RAN_HINT,
        urlFrom: request.urlFrom,
      });
    } catch (err) {
      if (last || !prepared.repeatable || !isUnreachable(err)) throw err;
      const delayMs = RECONNECT_DELAYS_MS[attempt - 1] ?? 0;
      notice(ctx, err.message, delayMs, attempt + 1);
      await sleep(delayMs);
      continue;
    }
    // A server asking for a long wait gets its 429 answered now (exit 6), not a silent hang.
    if (response.status !== 429 || last || retryAfterSeconds(response) > MAX_RETRY_AFTER_SECONDS) {
      return response;
    }
    const delayMs = retryAfterSeconds(response) * 1000;
    notice(ctx, 'rate limited', delayMs, attempt + 1);
    await sleep(delayMs);
  }
}

/** The longest `Retry-After` waited out; a longer one ends the command with the 429. */
const MAX_RETRY_AFTER_SECONDS = 60;

function isUnreachable(err: unknown): err is ExectlError {
  return (
    err instanceof ExectlError && err.code === 'unreachable' && !(err instanceof WrongServiceError)
  );
}

/** `exectl: rate limited — trying again in 2s (try 2 of 3)` */
function notice(ctx: CliContext, what: string, delayMs: number, nextTry: number): void {
  if (ctx.quiet) return;
  const wait = `${Number((delayMs / 1000).toFixed(2))}s`;
  ctx.stderr.write(
    `exectl: ${oneLine(what)} — trying again in ${wait} (try ${nextTry} of ${MAX_TRIES})\n`,
  );
}
