// The client's cache folder (XDG base directories): completion's answers and the key that
// worked per server live there. Nothing in it is a secret: never a token or a private key.
import { isAbsolute, join } from 'node:path';
import { homeDir } from './settings.js';

/** `$XDG_CACHE_HOME/exectl`, with `~/.cache` when XDG_CACHE_HOME is unset or relative. */
export function cacheDir(env: Readonly<Record<string, string | undefined>>): string {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(homeDir(env), '.cache');
  return join(base, 'exectl');
}
