// Who owns a fresh data folder and which keys they sign with (SPEC §7 first start): the email
// from --owner, git or $USER, and the public keys from --authorized-key files or ~/.ssh/*.pub;
// and the owner shown in the banner (made on a data folder without accounts, else the oldest).
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { ExectlError } from '../../../errors.js';
import {
  bootstrapOwner,
  checkEmail,
  hasNoAccounts,
  parseKeyLines,
  type KeyLine,
  type RejectedKeyLine,
  type Store,
} from '../../../service/index.js';
import type { PublicKey } from '../../../token/keys.js';
import type { CliContext } from '../../context.js';
import { warn } from '../../output.js';
import { homeDir } from '../../settings.js';
import type { BannerFacts } from './banner.js';
import { readUserText } from './data.js';
import type { ServeSettings } from './options.js';

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
async function readHomeSshKeys(
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

/**
 * Creates the owner account when the store has none — email from --owner, git or $USER; keys
 * from `authorizedKeys` (the --authorized-key files), else every ~/.ssh/*.pub — and returns
 * the owner for the banner. Files of ~/.ssh that hold no usable key are skipped with a warning.
 */
export async function bootstrapOwnerAccount(
  ctx: CliContext,
  store: Store,
  settings: Pick<ServeSettings, 'owner'>,
  authorizedKeys: readonly PublicKey[] | undefined,
): Promise<BannerFacts['owner']> {
  if (hasNoAccounts(store)) {
    const email = await ownerEmail(settings.owner, ctx.env);
    const keys = authorizedKeys ?? (await homeKeys(ctx));
    const made = bootstrapOwner(store, email, keys);
    if (made !== undefined) return { email, created: true, keys: made.added };
  }
  warnIgnored(ctx, store, settings.owner, authorizedKeys ?? []);
  const first = store.listAccounts()[0]!;
  return { email: first.email, created: false, keys: store.listKeys(first.id) };
}

async function homeKeys(ctx: CliContext): Promise<PublicKey[]> {
  const { keys, skipped } = await readHomeSshKeys(ctx.env);
  for (const { source, reason } of skipped) warn(ctx, `skipping ${source}: ${reason}`);
  return keys;
}

/**
 * --owner and --authorized-key act on an empty data folder only. When they ask for something
 * the folder does not have, say so rather than let the user believe it was done.
 */
function warnIgnored(
  ctx: CliContext,
  store: Store,
  owner: string | undefined,
  keys: readonly PublicKey[],
): void {
  const missingOwner = owner !== undefined && store.findAccountByEmail(owner) === undefined;
  const missingKeys = keys.filter((k) => store.findKeyByFingerprint(k.fingerprint) === undefined);
  if (!missingOwner && missingKeys.length === 0) return;
  const what = missingOwner
    ? `--owner ${owner}`
    : `--authorized-key ${missingKeys[0]!.fingerprint}`;
  warn(
    ctx,
    `${what} is not applied: the data folder already has accounts; add it with \`exectl serve accounts add EMAIL --key FILE\``,
  );
}
