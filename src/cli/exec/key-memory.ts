// The key that worked, per server (SPEC §8): after a minted request was accepted, its key is
// written to `keys.json` in the cache folder ($XDG_CACHE_HOME/exectl, else ~/.cache/exectl) and
// tried first next time. Only a fingerprint and where the key came from (`ssh-agent` or a file
// path) are written, never a token or a key; the file is the user's alone (0600). Like any
// cache, a file that cannot be read or written is no memory, never an error.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../cache-dir.js';
import { execEndpoint } from './url.js';

type Env = Readonly<Record<string, string | undefined>>;

/** A key as remembered: its fingerprint and where it came from. */
export interface RememberedKey {
  fingerprint: string;
  /** `ssh-agent`, or the path of the key file. */
  source: 'ssh-agent' | { path: string };
}

/** One entry of the file: `{"fingerprint":"SHA256:…","source":"ssh-agent"}` or `"source":"file","path":…`. */
interface Entry {
  fingerprint: string;
  source: 'ssh-agent' | 'file';
  path?: string;
}

const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/;

/** `$XDG_CACHE_HOME/exectl/keys.json`. */
export function keyMemoryFile(env: Env): string {
  return join(cacheDir(env), 'keys.json');
}

/**
 * The server a URL names, as the file's entries are keyed: scheme, host, port and path,
 * without credentials or a trailing `/`; undefined for a URL that is not http(s).
 */
function serverOf(url: string): string | undefined {
  try {
    return execEndpoint(url).slice(0, -'/exec'.length);
  } catch {
    return undefined;
  }
}

function readEntries(file: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    return Object.assign(Object.create(null) as Record<string, unknown>, parsed);
  } catch {
    return {};
  }
}

function rememberedFrom(value: unknown): RememberedKey | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const entry = value as Partial<Entry>;
  if (typeof entry.fingerprint !== 'string' || !FINGERPRINT.test(entry.fingerprint)) {
    return undefined;
  }
  if (entry.source === 'ssh-agent') return { fingerprint: entry.fingerprint, source: 'ssh-agent' };
  if (entry.source === 'file' && typeof entry.path === 'string' && entry.path !== '') {
    return { fingerprint: entry.fingerprint, source: { path: entry.path } };
  }
  return undefined;
}

/** The key that last worked for the server at `url`, if one is remembered. */
export function rememberedKey(env: Env, url: string): RememberedKey | undefined {
  const server = serverOf(url);
  if (server === undefined) return undefined;
  const entries = readEntries(keyMemoryFile(env));
  return Object.hasOwn(entries, server) ? rememberedFrom(entries[server]) : undefined;
}

/**
 * Remembers `key` for the server at `url` (undefined: forgets it). The file is rewritten only
 * when this changes it, whole (a reader never sees half of it) and with mode 0600.
 */
export function rememberKey(env: Env, url: string, key: RememberedKey | undefined): void {
  const server = serverOf(url);
  if (server === undefined) return;
  const file = keyMemoryFile(env);
  const entries = readEntries(file);
  const entry: Entry | undefined =
    key === undefined
      ? undefined
      : key.source === 'ssh-agent'
        ? { fingerprint: key.fingerprint, source: 'ssh-agent' }
        : { fingerprint: key.fingerprint, source: 'file', path: key.source.path };
  const before = Object.hasOwn(entries, server) ? JSON.stringify(entries[server]) : undefined;
  if (before === (entry === undefined ? undefined : JSON.stringify(entry))) return;
  if (entry === undefined) delete entries[server];
  else entries[server] = entry;
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(cacheDir(env), { recursive: true, mode: 0o700 });
    // A fresh file (`wx`), so that it has the mode given here whatever was left behind.
    rmSync(temporary, { force: true });
    writeFileSync(temporary, `${JSON.stringify(entries, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(temporary, file);
  } catch {
    // A read-only or full disk: the key is found again next time, one 401 later.
  }
}
