// Where completion's answers about the server come from: the cache, else the server itself,
// asked the way `exectl run` asks (the same URL, profile, key or token), with one short
// deadline for everything. Completion must never speak: every failure (server down, no key,
// a key that needs a passphrase, a token without `help` or `ls`) is "nothing known".
import { Readable, Writable } from 'node:stream';
import { isJson } from '../../exec/answer.js';
import { postExec } from '../../exec/http.js';
import { requestToken } from '../../exec/token.js';
import { createContext, type CliProcess } from '../../context.js';
import { loadConfigFile } from '../../settings.js';
import type { CompletionSources, VmEntry } from './answer.js';
import { cacheFile, readCached, writeCached } from './cache.js';
import type { ServerCommand } from './server-line.js';

/** The longest completion waits for the server, all requests together. */
const SERVER_DEADLINE_MS = 1000;

type Env = Readonly<Record<string, string | undefined>>;

/** The sources of one completion, for the server `globals` name (else the usual settings). */
export function serverSources(
  env: Env,
  globals: { url?: string; profile?: string },
  nowMs: number = Date.now(),
): CompletionSources {
  // No terminal to prompt on (a key's passphrase is never asked) and nowhere to print.
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const proc: CliProcess = { stdin: Readable.from([]), stdout: silent, stderr: silent, env };
  const ctx = createContext(proc, { ...globals, color: false });
  let deadline: AbortSignal | undefined;

  /**
   * The JSON answer to `line` (needing exactly `scope`) as `parse` reads it, cached under
   * `kind`: only what `parse` keeps is stored.
   */
  async function ask<T>(
    kind: string,
    line: string,
    scope: string,
    parse: (data: unknown) => T | undefined,
  ): Promise<T | undefined> {
    try {
      const settings = ctx.settings();
      const identity = [settings.url, settings.profile, settings.namespace, settings.keyPath];
      const file = cacheFile(env, identity.map((part) => part ?? '').join('\n'));
      const cached = parse(readCached(file, kind, nowMs));
      if (cached !== undefined) return cached;
      deadline ??= AbortSignal.timeout(SERVER_DEADLINE_MS);
      const credential = await requestToken(ctx, settings, undefined, scope);
      const response = await postExec(settings.url, credential.token, line, {
        signal: deadline,
        urlFrom: settings.urlFrom,
      });
      if (response.status !== 200 || !isJson(response)) return undefined;
      const data = parse(JSON.parse(response.body.toString('utf8')));
      if (data !== undefined) writeCached(file, kind, data, nowMs);
      return data;
    } catch {
      return undefined;
    }
  }

  return {
    serverCommands: () => ask('help-all', 'help all', 'help', commandsOf),
    vms: () => ask('vms', 'ls', 'ls', vmsOf),
    profiles: () => {
      try {
        return Object.keys(loadConfigFile(env)?.profiles ?? {});
      } catch {
        return [];
      }
    },
  };
}

/** `help all`'s commands (or the cached list), or undefined when the answer is not one. */
function commandsOf(data: unknown): ServerCommand[] | undefined {
  const list = Array.isArray(data) ? data : (data as { commands?: unknown } | undefined)?.commands;
  if (!Array.isArray(list)) return undefined;
  return list.filter(
    (c): c is ServerCommand =>
      typeof c?.name === 'string' &&
      typeof c.usage === 'string' &&
      typeof c.description === 'string',
  );
}

/** `ls`'s VMs (or the cached list), or undefined when the answer is not a VM list. */
function vmsOf(data: unknown): VmEntry[] | undefined {
  if (Array.isArray(data)) return data.filter(isVmEntry); // as cached
  const list = (data as { vms?: unknown } | undefined)?.vms;
  if (!Array.isArray(list)) return undefined;
  return list
    .filter((v) => typeof v?.vm_name === 'string')
    .map((v: { vm_name: string; status?: unknown }) => ({
      name: v.vm_name,
      status: typeof v.status === 'string' ? v.status : '',
    }));
}

function isVmEntry(v: unknown): v is VmEntry {
  const entry = v as Partial<VmEntry> | undefined;
  return typeof entry?.name === 'string' && typeof entry.status === 'string';
}
