// The keys exectl may sign with, in the order it tries them: the key that worked last time for
// the server (key-memory.ts), then SPEC §1.4's order (token/signer.ts keyCandidates), each with
// where it comes from in SPEC §8's words. One list for every command that signs: what
// `auth status` shows, what `mint` signs with, and what `run`, `ssh` and `mint --svc1` fall back
// through (key-fallback.ts).
import { ExectlError } from '../../errors.js';
import type { Signer } from '../../token/keys.js';
import { keyCandidates, noKeyFound, type KeyCandidate } from '../../token/signer.js';
import type { CliContext } from '../context.js';
import { passphraseSource } from '../prompt.js';
import { homeDir, type Settings } from '../settings.js';
import { rememberedKey } from './key-memory.js';

/** One key exectl would try. */
export interface Candidate {
  /** `ssh-agent`, `file <path>`, or `profile "<name>" (<path>)`. */
  readonly source: string;
  /** Where the key came from, as key-memory.ts remembers it. */
  readonly origin: KeyCandidate['source'];
  /** Known before loading for agent keys and files with a `.pub`; else once loaded. */
  fingerprint: string | undefined;
  /** Whether this is the key that worked last time for the server (it is then first). */
  readonly remembered: boolean;
  /** Loads the key once (asking `passphrase` only for an encrypted file); later calls reuse it. */
  signer(passphrase: () => Promise<string | undefined>): Promise<Signer>;
}

/** `key SHA256:… from ssh-agent`: the words every 401 of the client names its key with. */
export function describeCandidate(candidate: Candidate): string {
  return `key ${candidate.fingerprint ?? '(fingerprint unknown)'} from ${candidate.source}`;
}

/**
 * Every key exectl would try for `settings`, in order. With a key path (`--key`, `EXECTL_KEY`,
 * the profile): the agent's copy of it, then the file, and nothing is remembered. Without:
 * the key that worked last time for `settings.url` when it is still among them, then every
 * agent key, then `~/.ssh/id_ed25519`, `id_ecdsa`, `id_rsa`.
 */
export async function signingCandidates(ctx: CliContext, settings: Settings): Promise<Candidate[]> {
  const keys = await keyCandidates({
    keyPath: settings.keyPath,
    agentSocket: ctx.env.SSH_AUTH_SOCK || undefined,
    homeDir: homeDir(ctx.env),
  });
  const candidates = keys.map((key) => candidateOf(key, sourceWords(key, settings), false));
  if (settings.keyPath !== undefined) return candidates;
  const remembered = rememberedKey(ctx.env, settings.url);
  if (remembered === undefined) return candidates;
  for (const [index, candidate] of candidates.entries()) {
    if (!sameOrigin(candidate.origin, remembered.source)) continue;
    if ((await fingerprintWithoutAsking(candidate)) !== remembered.fingerprint) continue;
    const first = candidateOf(keys[index]!, candidate.source, true, candidate);
    return [first, ...candidates.filter((_, i) => i !== index)];
  }
  return candidates;
}

/**
 * The key that signs now: the first candidate, loaded (asking its passphrase when needed).
 *
 * @throws ExectlError `key_error` when there is no key or it cannot be loaded; a bad `key` of a
 *   profile names the profile file.
 */
export async function firstSigner(
  ctx: CliContext,
  settings: Settings,
  candidates: readonly Candidate[],
): Promise<Signer> {
  const [first] = candidates;
  if (first === undefined) throw noKeyFound();
  try {
    return await first.signer(passphraseSource(ctx));
  } catch (err) {
    // A bad `key` in a profile is fixed in the profile file, not with --key or EXECTL_KEY.
    if (!(err instanceof ExectlError) || settings.keyFrom !== 'profile') throw err;
    throw new ExectlError(err.code, `${err.message} (the key of profile "${settings.profile}")`, {
      hint: `fix "key" of profile "${settings.profile}" in ${settings.profileFile}`,
      cause: err,
    });
  }
}

function sameOrigin(a: KeyCandidate['source'], b: KeyCandidate['source']): boolean {
  if (a === 'ssh-agent' || b === 'ssh-agent') return a === b;
  return a.path === b.path;
}

/** The fingerprint, loading an unencrypted file without a `.pub` (never asking a passphrase). */
async function fingerprintWithoutAsking(candidate: Candidate): Promise<string | undefined> {
  if (candidate.fingerprint !== undefined) return candidate.fingerprint;
  try {
    return (await candidate.signer(async () => undefined)).publicKey.fingerprint;
  } catch {
    return undefined;
  }
}

function sourceWords(key: KeyCandidate, settings: Settings): string {
  if (key.source === 'ssh-agent') return 'ssh-agent';
  if (settings.keyFrom === 'profile') return `profile "${settings.profile}" (${key.source.path})`;
  return `file ${key.source.path}`;
}

/** A candidate that loads its key once; `from` lends an already loaded key. */
function candidateOf(
  key: KeyCandidate,
  source: string,
  remembered: boolean,
  from?: Candidate,
): Candidate {
  let loaded: Promise<Signer> | undefined;
  const candidate: Candidate = {
    source,
    origin: key.source,
    fingerprint: from?.fingerprint ?? key.fingerprint,
    remembered,
    signer(passphrase) {
      if (from !== undefined) return from.signer(passphrase);
      loaded ??= key.signer(passphrase).then((signer) => {
        candidate.fingerprint = signer.publicKey.fingerprint;
        return signer;
      });
      // A failed load (no passphrase now) may be tried again with another passphrase source.
      loaded.catch(() => (loaded = undefined));
      return loaded;
    },
  };
  return candidate;
}
