// SPEC §8: with no `--key`/`EXECTL_KEY`/profile key, a minted request that gets 401 is sent
// again with each further candidate key, as OpenSSH tries its identities (nothing ran on a 401,
// so any command may be re-sent); the key that worked is remembered per server and tried first
// next time (key-memory.ts). When it is not the first candidate, or at the first contact with a
// server while several keys could sign, stderr names it and the account it acts as: a `whoami`
// learns the account, one more request, made only then (the next time, that key is first and
// remembered, and nothing is asked or said).
import { ExectlError } from '../../errors.js';
import type { Signer } from '../../token/keys.js';
import type { CliContext } from '../context.js';
import { oneLine, printable } from '../output.js';
import { passphraseSource } from '../prompt.js';
import type { Settings } from '../settings.js';
import { describeCandidate, firstSigner, signingCandidates, type Candidate } from './candidates.js';
import { withoutCredentials, type ExecResponse } from './http.js';
import { rememberKey } from './key-memory.js';
import { whoamiWith } from './whoami-check.js';

/** The answer to a request signed in turn by the candidate keys, and which keys signed. */
export interface FallbackOutcome {
  response: ExecResponse;
  /**
   * For messages: the key that signed (`key SHA256:… from ssh-agent`), or, when every key got
   * 401, each key tried in order.
   */
  signedBy: string;
  /** The token that was sent when it was configured rather than minted (for 401 hints). */
  configuredToken?: string;
}

/**
 * Sends a request with `send` (which mints with the signer it is given) signed by the first
 * candidate key and, while the answer is 401 and no key was configured, by each further one.
 *
 * @throws ExectlError `key_error` when no key can sign; whatever `send` throws.
 */
export async function sendWithEachKey(
  ctx: CliContext,
  settings: Settings,
  send: (signer: Signer) => Promise<ExecResponse>,
): Promise<FallbackOutcome> {
  const candidates = await signingCandidates(ctx, settings);
  const signer = await firstSigner(ctx, settings, candidates);
  const first = candidates[0] as Candidate;
  let response = await send(signer);
  // A configured key is the user's choice: its 401 stays a 401.
  if (settings.keyPath !== undefined) return { response, signedBy: describeCandidate(first) };
  let used = first;
  /** Every key tried, for the 401; `refused`: those the server refused, for the notice. */
  const tried = [describeCandidate(first)];
  const refusedWords = [describeCandidate(first)];
  const refused = new Set([first.fingerprint]);
  for (const next of candidates.slice(1)) {
    if (response.status !== 401) break;
    if (next.fingerprint !== undefined && refused.has(next.fingerprint)) continue;
    let nextSigner: Signer;
    try {
      nextSigner = await next.signer(passphraseSource(ctx));
    } catch (err) {
      // A key that cannot be loaded now (no passphrase) is passed over, as ssh does.
      if (!(err instanceof ExectlError)) throw err;
      tried.push(`${next.source}, not loaded: ${oneLine(err.message)}`);
      continue;
    }
    if (refused.has(nextSigner.publicKey.fingerprint)) continue;
    let answer: ExecResponse;
    try {
      answer = await send(nextSigner);
    } catch (err) {
      // The agent would not sign with it (a confirmation refused): passed over as well.
      if (!(err instanceof ExectlError) || err.code !== 'key_error') throw err;
      tried.push(`${describeCandidate(next)}, not used: ${oneLine(err.message)}`);
      continue;
    }
    refused.add(nextSigner.publicKey.fingerprint);
    tried.push(describeCandidate(next));
    used = next;
    response = answer;
    if (response.status === 401) refusedWords.push(describeCandidate(next));
  }
  if (response.status === 401) {
    rememberKey(ctx.env, settings.url, undefined);
    return { response, signedBy: tried.join(', then ') };
  }
  if (accepted(response.status) && used.fingerprint !== undefined) {
    rememberKey(ctx.env, settings.url, { fingerprint: used.fingerprint, source: used.origin });
    if (used !== first)
      await sayWhoActs(ctx, settings, used, `the server refused ${refusedWords.join(', then ')}`);
    else if (!first.remembered && distinctKeys(candidates) > 1) {
      // First contact with this server and several keys to choose from: the first one accepted
      // may belong to another account than the user thinks (a colleague's key in the agent).
      await sayWhoActs(
        ctx,
        settings,
        used,
        `the first of ${distinctKeys(candidates)} keys; --key picks another`,
      );
    }
  }
  return { response, signedBy: describeCandidate(used) };
}

/** How many different keys the candidates hold (the agent and a file may hold the same). */
function distinctKeys(candidates: readonly Candidate[]): number {
  return new Set(candidates.map((c) => c.fingerprint ?? c.source)).size;
}

/**
 * Whether the server verified the key: any answer SPEC §2 gives after the 401 check, except a
 * 429 (an address out of failed verifications gets one before it) and server errors.
 */
function accepted(status: number): boolean {
  return status < 500 && status !== 401 && status !== 405 && status !== 429;
}

/**
 * `exectl: acting as bob@example.com, signed by key SHA256:… from file …/id_ed25519 (the server
 * refused key SHA256:… from ssh-agent) — this key is tried first for http://… from now on`.
 * Said even with `-q`: whom a command acts as is not a warning one may silence.
 */
async function sayWhoActs(
  ctx: CliContext,
  settings: Settings,
  used: Candidate,
  why: string,
): Promise<void> {
  let who = `the account of ${describeCandidate(used)}`;
  try {
    const answer = await whoamiWith(ctx, settings, await used.signer(passphraseSource(ctx)));
    if (answer.email !== undefined) who = `${answer.email}, signed by ${describeCandidate(used)}`;
  } catch {
    // The command already ran: its notice names the key without the account.
  }
  const line =
    `acting as ${who} (${why}) — ` +
    `this key is tried first for ${withoutCredentials(settings.url)} from now on`;
  ctx.stderr.write(`exectl: ${printable(oneLine(line))}\n`);
}
