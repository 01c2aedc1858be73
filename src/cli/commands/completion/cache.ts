// The completion cache: the server's answers (`help all`, the VM list) kept for a minute in
// $XDG_CACHE_HOME/exectl (else ~/.cache/exectl), one small JSON file per server, so that
// pressing TAB again does not ask again. Only names, usages, descriptions and statuses are
// written: never a token. Any failure to read or write it is a cache miss, never an error.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../../cache-dir.js';

/** How long an answer is used before the server is asked again. */
export const CACHE_LIFETIME_MS = 60_000;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The cache file of one server as seen by one identity (`identity` holds the URL, profile,
 * namespace and key path: each may see other VMs); its name is a hash of it, so no URL or
 * path is written in a file name.
 */
export function cacheFile(env: Env, identity: string): string {
  const hash = createHash('sha256').update(identity).digest('hex').slice(0, 32);
  return join(cacheDir(env), `completion-${hash}.json`);
}

type Entries = Record<string, { at: number; data: unknown }>;

function readEntries(file: string): Entries {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Entries) : {};
  } catch {
    return {};
  }
}

/** The `kind` answer stored less than {@link CACHE_LIFETIME_MS} before `nowMs`, if any. */
export function readCached(file: string, kind: string, nowMs: number): unknown {
  const entry = readEntries(file)[kind];
  if (entry === undefined || typeof entry.at !== 'number') return undefined;
  const age = nowMs - entry.at;
  return age >= 0 && age < CACHE_LIFETIME_MS ? entry.data : undefined;
}

/** Stores the `kind` answer (mode 0600, replaced whole so a reader never sees half of it). */
export function writeCached(file: string, kind: string, data: unknown, nowMs: number): void {
  try {
    const entries = { ...readEntries(file), [kind]: { at: nowMs, data } };
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(entries), { mode: 0o600 });
    renameSync(temporary, file);
  } catch {
    // A read-only or full disk: completion still answers, only slower next time.
  }
}
