// The keys exectl could sign with, in the order of SPEC §1.4, each with where it comes from:
// what `exectl auth status` lists. chooseSigner (src/token/signer.ts) stays the one that picks.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { agentSigners, DEFAULT_KEY_FILES, isFile } from '../../../token/signer.js';
import { loadPrivateKey, parsePublicKey, type Signer } from '../../../token/keys.js';
import type { CliContext } from '../../context.js';
import { homeDir, type Settings } from '../../settings.js';

/** One key exectl would try. */
export interface Candidate {
  /** `ssh-agent`, `file <path>`, or `profile "<name>" (<path>)`. */
  source: string;
  /** Undefined when neither the key nor its `.pub` could be read. */
  fingerprint: string | undefined;
  /** Set when the key can sign without asking for a passphrase. */
  signer: Signer | undefined;
  /** Why it cannot be used, when it cannot. */
  problem: string | undefined;
}

/**
 * With a key path (`--key`, `EXECTL_KEY`, the profile): the agent's copy of it, then the file.
 * Without: every agent key (the first signs), then `~/.ssh/id_ed25519`, `id_ecdsa`, `id_rsa`.
 */
export async function signingCandidates(ctx: CliContext, settings: Settings): Promise<Candidate[]> {
  const agent = await agentSigners(ctx.env.SSH_AUTH_SOCK || undefined);
  const candidates: Candidate[] = [];
  if (settings.keyPath !== undefined) {
    const file = await fileCandidate(ctx, settings.keyPath, fileSource(settings));
    const inAgent = agent.find((s) => s.publicKey.fingerprint === file.fingerprint);
    if (inAgent !== undefined) candidates.push(agentCandidate(inAgent));
    candidates.push(file);
    return candidates;
  }
  candidates.push(...agent.map(agentCandidate));
  for (const name of DEFAULT_KEY_FILES) {
    const path = join(homeDir(ctx.env), '.ssh', name);
    if (isFile(path)) candidates.push(await fileCandidate(ctx, path, `file ${path}`));
  }
  return candidates;

  function fileSource(s: Settings): string {
    return s.keyFrom === 'profile' ? `profile "${s.profile}" (${s.keyPath})` : `file ${s.keyPath}`;
  }
}

function agentCandidate(signer: Signer): Candidate {
  return {
    source: 'ssh-agent',
    fingerprint: signer.publicKey.fingerprint,
    signer,
    problem: undefined,
  };
}

/** A key file: loaded when that needs no prompt (EXECTL_PASSPHRASE counts), else its `.pub`. */
async function fileCandidate(ctx: CliContext, path: string, source: string): Promise<Candidate> {
  try {
    const signer = await loadPrivateKey(path, {
      passphrase: async () => ctx.env.EXECTL_PASSPHRASE || undefined,
    });
    return { source, fingerprint: signer.publicKey.fingerprint, signer, problem: undefined };
  } catch (err) {
    const problem = err instanceof Error ? err.message : String(err);
    let fingerprint: string | undefined;
    try {
      fingerprint = parsePublicKey(await readFile(`${path}.pub`, 'utf8')).fingerprint;
    } catch {
      fingerprint = undefined;
    }
    return { source, fingerprint, signer: undefined, problem };
  }
}
