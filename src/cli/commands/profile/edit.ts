// `exectl profile add|use|remove`: change the config file the client reads its profiles from
// (SPEC §8). Every change is checked with the rules the client reads the file with (settings.ts
// checkConfig, exec/url.ts for the URL) before the file is replaced, so a file exectl wrote is a
// file exectl reads; a refused change leaves the file as it was. Profiles and fields a change
// does not name are written back as they were read.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ExectlError } from '../../../errors.js';
import type { CliContext } from '../../context.js';
import { withoutCredentials } from '../../exec/http.js';
import { execEndpoint } from '../../exec/url.js';
import { printable, warn } from '../../output.js';
import {
  checkConfig,
  configPath,
  expandHome,
  loadConfigFile,
  type ConfigFile,
  type Profile,
} from '../../settings.js';
import { writeConfigFile } from './write-config.js';

/** What `profile add` stores. */
export interface AddOptions {
  url: string | undefined;
  key: string | undefined;
  namespace: string | undefined;
}

/**
 * A profile name exectl writes: shell-safe, so that `--profile NAME` and completion need no
 * quoting (the file may hold other names, written by hand; they are kept as they are).
 */
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Adds the profile `name`; refused when it exists. */
export async function runProfileAdd(
  ctx: CliContext,
  name: string,
  options: AddOptions,
): Promise<void> {
  checkName(name);
  if (options.url === undefined) {
    throw new ExectlError('usage', 'profile add needs --url', {
      hint: `e.g. exectl profile add ${name} --url http://127.0.0.1:7070`,
    });
  }
  // The client's own rule for a URL, with its own words (`--url "x" ends in /exec, …`).
  execEndpoint(options.url, '--url');
  const profile: Profile = { url: options.url };
  if (options.key !== undefined) profile.key = keyPath(ctx, options.key);
  if (options.namespace !== undefined) {
    if (options.namespace === '') {
      throw new ExectlError('usage', '--namespace needs a value', { hint: 'e.g. v0@example.com' });
    }
    profile.namespace = options.namespace;
  }

  const { path, config } = current(ctx);
  if (Object.hasOwn(config.profiles, name)) {
    throw new ExectlError('usage', `profile "${name}" already exists in ${path}`, {
      hint: `remove it first (exectl profile remove ${name}), or choose another name`,
    });
  }
  await save(path, { ...config.profiles, [name]: profile }, config.defaultProfile);
  ctx.stdout.write(`added profile "${name}" to ${path}\n`);
  if (config.defaultProfile !== name && !ctx.quiet) {
    ctx.stdout.write(`use it with --profile ${name}, or by default: exectl profile use ${name}\n`);
  }
}

/** Makes `name` the default profile (`defaultProfile` in the file). */
export async function runProfileUse(
  ctx: CliContext,
  name: string,
  profileFlag: string | undefined,
): Promise<void> {
  const { path, config } = current(ctx);
  const profile = existing(config, path, name);
  await save(path, config.profiles, name);
  const url = profile.url === undefined ? '' : ` (${printable(withoutCredentials(profile.url))})`;
  ctx.stdout.write(`default profile: "${name}"${url}\n`);
  // The default is the last choice: a profile named in this shell still comes first.
  const named: [string, string | undefined][] = [
    ['--profile', profileFlag],
    ['EXECTL_PROFILE', ctx.env.EXECTL_PROFILE],
  ];
  const chosen = named.find(([, value]) => value !== undefined && value !== '');
  if (chosen !== undefined && chosen[1] !== name) {
    warn(ctx, `${chosen[0]} names profile "${printable(chosen[1]!)}", which still comes first`);
  }
}

/** Removes the profile `name`, and the default when it named it. */
export async function runProfileRemove(ctx: CliContext, name: string): Promise<void> {
  const { path, config } = current(ctx);
  existing(config, path, name);
  const profiles = { ...config.profiles };
  delete profiles[name];
  const wasDefault = config.defaultProfile === name;
  await save(path, profiles, wasDefault ? undefined : config.defaultProfile);
  ctx.stdout.write(
    `removed profile "${name}" from ${path}${wasDefault ? '; no profile is the default now' : ''}\n`,
  );
}

/** The config file as it is (an empty one when there is none yet), checked. */
function current(ctx: CliContext): { path: string; config: ConfigFile } {
  const path = configPath(ctx.env);
  return { path, config: loadConfigFile(ctx.env) ?? { path, profiles: {} } };
}

function existing(config: ConfigFile, path: string, name: string): Profile {
  if (!Object.hasOwn(config.profiles, name)) {
    throw new ExectlError('usage', `profile "${name}" not found in ${path}`, {
      hint: `see exectl profile list, or add it with exectl profile add ${name} --url URL`,
    });
  }
  return config.profiles[name]!;
}

/** Checks the new file with the reader's rules, then writes it. */
async function save(
  path: string,
  profiles: Readonly<Record<string, Profile>>,
  defaultProfile: string | undefined,
): Promise<void> {
  const document = defaultProfile === undefined ? { profiles } : { profiles, defaultProfile };
  checkConfig(path, document);
  await writeConfigFile(path, document);
}

function checkName(name: string): void {
  if (!PROFILE_NAME.test(name)) {
    throw new ExectlError('usage', `profile name "${printable(name)}" is not allowed`, {
      hint: 'use up to 64 letters, digits, ".", "_" and "-", starting with a letter or digit',
    });
  }
}

/**
 * The key as the file keeps it: `~/…` as given (the client expands it), any other path made
 * absolute, for the profile works from any folder. A key that is not there is refused now
 * rather than at the first request.
 */
function keyPath(ctx: CliContext, given: string): string {
  const stored = given === '~' || given.startsWith('~/') ? given : resolve(given);
  let isFile = false;
  try {
    isFile = statSync(expandHome(stored, ctx.env)).isFile();
  } catch {
    // Missing or unreadable: said below.
  }
  if (!isFile) {
    throw new ExectlError('usage', `--key ${printable(given)}: no such file`, {
      hint: 'give the path of a private key, e.g. ~/.ssh/id_ed25519',
    });
  }
  return stored;
}
