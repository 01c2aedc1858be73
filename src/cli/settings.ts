// Client settings: flags > env > profile > defaults (SPEC §8 "Global", §1.2 namespaces).
// The profile file's shape is documented in exectl(1), section PROFILES.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { ExectlError } from '../errors.js';

export const DEFAULT_URL = 'http://127.0.0.1:7070';
export const DEFAULT_DOMAIN = 'localhost';

/** One entry of `profiles` in the config file; every field is optional. */
export interface Profile {
  url?: string;
  key?: string;
  namespace?: string;
  domain?: string;
  token?: string;
}

export interface ConfigFile {
  path: string;
  profiles: Readonly<Record<string, Profile>>;
  defaultProfile?: string;
}

/** What the client runs with once every source has been weighed. */
export interface Settings {
  url: string;
  /** Where `url` came from, in words for messages: `--url`, `EXECTL_URL`, `url of profile "p" in <file>`, `the default URL`. */
  urlFrom: string;
  /** The profile in use, if any. */
  profile: string | undefined;
  /** Private key path from `--key`, `EXECTL_KEY` or the profile; else the signer searches. */
  keyPath: string | undefined;
  /** Where `keyPath` came from, for messages that name the key that signed. */
  keyFrom: '--key' | 'EXECTL_KEY' | 'profile' | undefined;
  /** The config file the profile in use comes from, for messages about its values. */
  profileFile: string | undefined;
  /** Namespace for command-endpoint tokens, e.g. `v0@localhost`. */
  namespace: string;
}

export interface SettingFlags {
  url?: string;
  profile?: string;
  key?: string;
  namespace?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const PROFILE_FIELDS: ReadonlySet<string> = new Set(['url', 'key', 'namespace', 'domain', 'token']);
/** SPEC §3: a VM name is a DNS label. */
const VM_NAME = /^[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

/** The user's home folder: `HOME` when set, else what the OS says. */
export function homeDir(env: Env): string {
  return nonEmpty(env.HOME) ?? homedir();
}

/** `$XDG_CONFIG_HOME/exectl/config.json`, with `~/.config` when XDG_CONFIG_HOME is unset. */
export function configPath(env: Env): string {
  const xdg = nonEmpty(env.XDG_CONFIG_HOME);
  // The XDG spec says relative values are invalid and must be ignored.
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(homeDir(env), '.config');
  return join(base, 'exectl', 'config.json');
}

/** Reads and checks the config file; `undefined` when there is none. */
export function loadConfigFile(env: Env): ConfigFile | undefined {
  const path = configPath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw configError(path, `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw configError(path, 'is not valid JSON');
  }
  return checkConfig(path, data);
}

/** Applies the precedence flags > env > profile > defaults. */
export function resolveSettings(
  flags: SettingFlags,
  env: Env,
  config: ConfigFile | undefined,
): Settings {
  const profileName =
    nonEmpty(flags.profile) ?? nonEmpty(env.EXECTL_PROFILE) ?? config?.defaultProfile;
  let profile: Profile = {};
  if (profileName !== undefined) {
    // hasOwn: a name such as "toString" must not find Object.prototype's member.
    const found =
      config !== undefined && Object.hasOwn(config.profiles, profileName)
        ? config.profiles[profileName]
        : undefined;
    if (found === undefined) {
      throw new ExectlError('usage', `profile "${profileName}" not found`, {
        hint: `see exectl profile list, or add it with exectl profile add ${profileName} --url URL (to ${config?.path ?? configPath(env)})`,
      });
    }
    profile = found;
  }
  const domain = profile.domain ?? DEFAULT_DOMAIN;
  const profileKey = profile.key === undefined ? undefined : expandHome(profile.key, env);
  const profileFile = profileName === undefined ? undefined : config?.path;
  return {
    url: nonEmpty(flags.url) ?? nonEmpty(env.EXECTL_URL) ?? profile.url ?? DEFAULT_URL,
    urlFrom:
      nonEmpty(flags.url) !== undefined
        ? '--url'
        : nonEmpty(env.EXECTL_URL) !== undefined
          ? 'EXECTL_URL'
          : profile.url !== undefined
            ? `url of profile "${profileName}" in ${profileFile}`
            : 'the default URL',
    profile: profileName,
    profileFile,
    keyPath: nonEmpty(flags.key) ?? nonEmpty(env.EXECTL_KEY) ?? profileKey,
    keyFrom:
      nonEmpty(flags.key) !== undefined
        ? '--key'
        : nonEmpty(env.EXECTL_KEY) !== undefined
          ? 'EXECTL_KEY'
          : profileKey === undefined
            ? undefined
            : 'profile',
    namespace:
      nonEmpty(flags.namespace) ??
      nonEmpty(env.EXECTL_NAMESPACE) ??
      profile.namespace ??
      `v0@${domain}`,
  };
}

/**
 * The namespace of VM `vm` (SPEC §1.2 `v0@<vm-name>.<domain>`), where `<domain>` is what
 * follows `v0@` in the command-endpoint namespace chosen by the usual precedence.
 */
export function vmNamespace(namespace: string, vm: string): string {
  if (!VM_NAME.test(vm)) {
    throw new ExectlError('usage', `--vm "${vm}" is not a valid VM name`, {
      hint: 'a VM name is lowercase letters, digits and "-", starting with a letter',
    });
  }
  if (!namespace.startsWith('v0@') || namespace.length === 3) {
    throw new ExectlError(
      'usage',
      `--vm needs a namespace of the form v0@<domain>, not "${namespace}"`,
      {
        hint: 'give --namespace v0@<domain>, or set "domain" in the profile',
      },
    );
  }
  return `v0@${vm}.${namespace.slice(3)}`;
}

/**
 * The config file's rules, one source of truth: `data` (a parsed file, or one about to be
 * written by `exectl profile`) as a ConfigFile, or a usage error naming `path`.
 */
export function checkConfig(path: string, data: unknown): ConfigFile {
  if (!isObject(data)) throw configError(path, 'must hold a JSON object');
  for (const key of Object.keys(data)) {
    if (key !== 'profiles' && key !== 'defaultProfile')
      throw configError(path, `has an unknown field "${key}"`);
  }
  const profiles = data.profiles ?? {};
  if (!isObject(profiles)) throw configError(path, '"profiles" must be an object');
  for (const [name, profile] of Object.entries(profiles)) {
    if (!isObject(profile)) throw configError(path, `profile "${name}" must be an object`);
    for (const [field, value] of Object.entries(profile)) {
      if (!PROFILE_FIELDS.has(field))
        throw configError(path, `profile "${name}" has an unknown field "${field}"`);
      if (typeof value !== 'string' || value === '') {
        throw configError(path, `profile "${name}": "${field}" must be a non-empty string`);
      }
    }
  }
  const defaultProfile = data.defaultProfile;
  if (defaultProfile !== undefined && typeof defaultProfile !== 'string') {
    throw configError(path, '"defaultProfile" must be a string');
  }
  return {
    path,
    profiles: profiles as Record<string, Profile>,
    ...(defaultProfile === undefined ? {} : { defaultProfile }),
  };
}

function configError(path: string, problem: string): ExectlError {
  return new ExectlError('usage', `config file ${path} ${problem}`, {
    hint: 'fix it (its format is in exectl(1), PROFILES) or move it away',
  });
}

/** `~/x` means a path in the home folder, as in a shell. */
export function expandHome(path: string, env: Env): string {
  return path === '~' || path.startsWith('~/') ? join(homeDir(env), path.slice(1)) : path;
}

/** An unset and an empty variable mean the same: not given. */
function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
