// What of a client's message a log line may repeat. Messages are written for the client, and
// some repeat what it typed (`unknown command: <words>`): a token pasted as the body would land
// in the operator's log. Anything shaped like a token, a private key or a long random secret
// is replaced before a line is written.
import { entropyPerChar } from '../../inspection/secret-heuristic.js';

const TOKEN = /\b(?:svc|exe)[01]\.[A-Za-z0-9_.~+/=-]*/g;
const PEM = /-----BEGIN[^]*/g;
/** A run of base64/hex-like characters long enough to be a secret. */
const LONG_RUN = /[A-Za-z0-9_+/=-]{32,}/g;
/** Random base64 lies well above this; hex digests, words and UUIDs below (see inspection/). */
const RANDOM_ENTROPY = 4.2;
/** A log line repeats at most this much of a message. */
const MAX_SHOWN = 300;

/** `message` with every token, private key and random-looking secret in it replaced, shortened. */
export function logSafeMessage(message: string): string {
  const safe = message
    .replace(TOKEN, '<token>')
    .replace(PEM, '<private key>')
    .replace(LONG_RUN, (run) => (entropyPerChar(run) >= RANDOM_ENTROPY ? '<secret>' : run));
  return safe.length > MAX_SHOWN ? `${safe.slice(0, MAX_SHOWN)}...` : safe;
}
