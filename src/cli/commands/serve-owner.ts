// Who owns a fresh data folder and which keys they sign with (SPEC §7 first start): the email
// from --owner, git or $USER, and the public keys from --authorized-key files or ~/.ssh/*.pub.
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { ExectlError } from '../../errors.js';
import { checkEmail } from '../../service/commands/shared/validate.js';
import { parseKeyLines, type KeyLine, type RejectedKeyLine } from '../../service/bootstrap.js';
import type { PublicKey } from '../../token/keys.js';
import { homeDir } from '../settings.js';
import { readUserText } from './serve-files.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Long enough for any local git; short enough that a wedged one cannot stall the start. */
const GIT_TIMEOUT_MS = 5_000;

/** The owner's email: `--owner`, else `git config user.email`, else `$USER@localhost`. */
export async function ownerEmail(given: string | undefined, env: Env): Promise<string> {
  if (given !== undefined) return given;
  const fromGit = await gitUserEmail(env);
  if (fromGit !== undefined && isEmail(fromGit)) return fromGit;
  const user = env.USER || env.LOGNAME || userInfo().username;
  return `${user}@localhost`;
}

/**
 * The keys of files given with `flag` (`--authorized-key`, `--key`): each a .pub or
 * authorized_keys file, one key per line, blank lines and `#` comments skipped. The user named
 * these files, so an unreadable file or a line that is not a public key is an error.
 */
export async function readKeyFiles(paths: readonly string[], flag: string): Promise<PublicKey[]> {
  const lines: KeyLine[] = [];
  for (const path of paths) {
    const text = await readUserText(path, flag);
    text.split('\n').forEach((line, index) => {
      if (line.trim() !== '' && !line.trimStart().startsWith('#')) {
        lines.push({ line, source: `${path}:${index + 1}` });
      }
    });
  }
  const { keys, rejected } = parseKeyLines(lines);
  const bad = rejected[0];
  if (bad !== undefined) {
    throw new ExectlError('usage', `${flag} ${bad.source}: ${bad.reason}`, {
      hint: 'give .pub files or authorized_keys files without options before the key',
    });
  }
  if (keys.length === 0) {
    throw new ExectlError('usage', `${flag} ${paths.join(', ')} holds no public key`, {
      hint: 'give the .pub file of the key you sign tokens with, e.g. ~/.ssh/id_ed25519.pub',
    });
  }
  return keys;
}

/**
 * Every `~/.ssh/*.pub`, in name order. Files that do not hold a usable key (an unsupported
 * type, a certificate...) are reported in `skipped` instead of stopping the start.
 */
export async function readHomeSshKeys(
  env: Env,
): Promise<{ keys: PublicKey[]; skipped: RejectedKeyLine[] }> {
  const dir = join(homeDir(env), '.ssh');
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.pub')).sort();
  } catch {
    return { keys: [], skipped: [] }; // no ~/.ssh at all: the caller warns about having no key
  }
  const lines: KeyLine[] = [];
  const skipped: RejectedKeyLine[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      lines.push({ line: (await readFile(path, 'utf8')).trim(), source: path });
    } catch (err) {
      skipped.push({ source: path, reason: `cannot be read (${errorCode(err)})` });
    }
  }
  const { keys, rejected } = parseKeyLines(lines);
  return { keys, skipped: [...skipped, ...rejected] };
}

function gitUserEmail(env: Env): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['config', 'user.email'],
      { env: env as NodeJS.ProcessEnv, timeout: GIT_TIMEOUT_MS, encoding: 'utf8' },
      // No git, no repository or no user.email: all just mean "not from git".
      (err, stdout) => resolve(err ? undefined : stdout.trim() || undefined),
    );
  });
}

function isEmail(text: string): boolean {
  try {
    checkEmail(text);
    return true;
  } catch {
    return false;
  }
}

function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? 'error';
}
