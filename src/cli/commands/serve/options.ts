// `exectl serve` flags (SPEC §7): each flag also reads EXECTL_<NAME>, the flag winning. Every
// bad value is one usage error (exit 2) naming the flag or variable it came from.
import { isAbsolute, join } from 'node:path';
import { ExectlError } from '../../../errors.js';
import {
  DEFAULTS,
  parseListenAddress,
  type ListenAddress,
  type LogLevel,
  checkEmail,
  parseRateLimit,
  type RateLimit,
  type VmCeilings,
  MIN_DISK,
  MIN_MEMORY,
  parseCpus,
  parseSize,
  registrySettingsError,
} from '../../../service/index.js';
import { ALL_DIALECTS, COMPAT_NAMES, EXECTL_DIALECT, type Dialect } from '../../../dialects.js';
import { homeDir } from '../../settings.js';
import { LOG_LEVELS, RUNTIMES } from './choices.js';

/** The flags as commander parsed them (camelCase), before env and defaults. */
export interface ServeFlags {
  listen?: string;
  sshListen?: string;
  reflectionListen?: string;
  smtpListen?: string;
  data?: string;
  ephemeral?: boolean;
  domain?: string;
  vmDomain?: string;
  compat?: string;
  owner?: string;
  authorizedKey?: string[];
  tlsCert?: string;
  tlsKey?: string;
  runtime?: string;
  rateLimit?: string;
  seed?: string;
  logLevel?: string;
  allowPrivateTargets?: boolean;
  maxVmMemory?: string;
  maxVmCpus?: string;
  maxVmDisk?: string;
  maxVmsPerAccount?: string;
  registryMirror?: string;
  insecureRegistry?: string[];
}

/** Where the data lives: a folder kept across runs, or a temporary one removed at exit. */
export type DataFolder = { kind: 'dir'; path: string } | { kind: 'ephemeral' };

/** What `exectl serve` runs with once flags, env and defaults are weighed and checked. */
export interface ServeSettings {
  listen: ListenAddress;
  sshListen: ListenAddress | null;
  reflectionListen: ListenAddress;
  /** `--smtp-listen`: mail for VMs (SPEC §4b); null with `off`. */
  smtpListen: ListenAddress | null;
  data: DataFolder;
  domain: string;
  /** `--vm-domain`: VM tokens and proxy hosts; the compat mode's default, else `domain`. */
  vmDomain: string;
  /** `--compat`: the real service whose names are spoken too (src/dialects.ts); null: none. */
  compat: string | null;
  owner: string | undefined;
  authorizedKeys: string[];
  tls: { certPath: string; keyPath: string } | null;
  runtime: 'auto' | 'bwrap' | 'process';
  rateLimit: RateLimit | null;
  /** The rate limit in words (`60 requests per 60s for each key`, `off`) and where it came from. */
  rateLimitShown: { text: string; from: string };
  seedPath: string | undefined;
  logLevel: LogLevel;
  /** Integrations may forward to loopback, link-local and the host's own addresses. */
  allowPrivateTargets: boolean;
  /** The ceilings given; each one absent is the host's size (the service finds it). */
  vmCeilings: Partial<VmCeilings>;
  /** The most VMs one account may own. */
  maxVmsPerAccount: number;
  /** `--registry-mirror` and `--insecure-registry` (new --image pulls). */
  registries: { mirror?: string; insecure: string[] };
}

type Env = Readonly<Record<string, string | undefined>>;

/** Lowercase DNS labels separated by dots: the domain ends up in namespaces and VM hosts. */
const DOMAIN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** One value and where it came from, so a message can name the flag or the variable. */
interface Sourced<T> {
  value: T;
  from: string;
}

/** Applies flag > EXECTL_<NAME> > default to every serve flag and checks each value. */
export function resolveServeSettings(flags: ServeFlags, env: Env): ServeSettings {
  const pick = (flag: string, value: string | undefined): Sourced<string> | undefined => {
    if (value !== undefined) return { value, from: `--${flag}` };
    const name = envName(flag);
    const fromEnv = env[name];
    return fromEnv === undefined || fromEnv === '' ? undefined : { value: fromEnv, from: name };
  };

  const tlsCert = pick('tls-cert', flags.tlsCert);
  const tlsKey = pick('tls-key', flags.tlsKey);
  if ((tlsCert === undefined) !== (tlsKey === undefined)) {
    const given = tlsCert ?? tlsKey!;
    throw usage(`${given.from} needs ${given === tlsCert ? '--tls-key' : '--tls-cert'} too`, {
      hint: 'give both the certificate and its private key, or neither for plain HTTP',
    });
  }

  const sshListen = pick('ssh-listen', flags.sshListen) ?? from(DEFAULTS.sshListen);
  const smtpListen = pick('smtp-listen', flags.smtpListen) ?? from(DEFAULTS.smtpListen);
  const rateSource = pick('rate-limit', flags.rateLimit) ?? from(DEFAULTS.rateLimit);
  const rate = rateLimit(rateSource);
  const compatSource = pick('compat', flags.compat);
  const dialect = compatSource === undefined ? EXECTL_DIALECT : compatDialect(compatSource);
  const ownDomain = domain(pick('domain', flags.domain) ?? from(dialect.domain));
  const vmDomainSource = pick('vm-domain', flags.vmDomain);
  return {
    listen: listenAddress(pick('listen', flags.listen) ?? from(DEFAULTS.listen)),
    sshListen: sshListen.value === 'off' ? null : listenAddress(sshListen),
    reflectionListen: listenAddress(
      pick('reflection-listen', flags.reflectionListen) ?? from(DEFAULTS.reflectionListen),
    ),
    smtpListen: smtpListen.value === 'off' ? null : listenAddress(smtpListen),
    data: dataFolder(flags, env),
    domain: ownDomain,
    vmDomain:
      vmDomainSource === undefined ? (dialect.vmDomain ?? ownDomain) : domain(vmDomainSource),
    compat: dialect.compat,
    owner: ownerEmail(pick('owner', flags.owner)),
    authorizedKeys: authorizedKeys(flags, env),
    tls: tlsCert && tlsKey ? { certPath: tlsCert.value, keyPath: tlsKey.value } : null,
    runtime: oneOf(pick('runtime', flags.runtime) ?? from('auto'), RUNTIMES),
    rateLimit: rate,
    rateLimitShown: { text: rateLimitText(rateSource.value, rate), from: rateSource.from },
    seedPath: pick('seed', flags.seed)?.value,
    logLevel: oneOf(pick('log-level', flags.logLevel) ?? from('info'), LOG_LEVELS),
    allowPrivateTargets:
      flags.allowPrivateTargets === true ||
      envFlag('EXECTL_ALLOW_PRIVATE_TARGETS', env.EXECTL_ALLOW_PRIVATE_TARGETS),
    vmCeilings: ceilings(
      pick('max-vm-memory', flags.maxVmMemory),
      pick('max-vm-cpus', flags.maxVmCpus),
      pick('max-vm-disk', flags.maxVmDisk),
    ),
    maxVmsPerAccount: vmCount(
      pick('max-vms-per-account', flags.maxVmsPerAccount) ??
        from(String(DEFAULTS.maxVmsPerAccount)),
    ),
    registries: registries(pick('registry-mirror', flags.registryMirror), flags, env),
  };
}

/** `--max-vms-per-account N`: a whole number of VMs, at least 1. */
function vmCount(source: Sourced<string>): number {
  const count = /^\d{1,9}$/.test(source.value) ? Number(source.value) : 0;
  if (count < 1) {
    throw usage(`${source.from}: invalid number of VMs "${source.value}"`, {
      hint: 'a whole number, at least 1, such as 32',
    });
  }
  return count;
}

/**
 * `--registry-mirror` (or EXECTL_REGISTRY_MIRROR) and every `--insecure-registry` (or the
 * space- or comma-separated EXECTL_INSECURE_REGISTRY when the flag is not given).
 */
function registries(
  mirror: Sourced<string> | undefined,
  flags: Pick<ServeFlags, 'insecureRegistry'>,
  env: Env,
): ServeSettings['registries'] {
  const fromEnv = (env.EXECTL_INSECURE_REGISTRY ?? '').split(/[\s,]+/).filter((h) => h !== '');
  const insecure = flags.insecureRegistry ?? fromEnv;
  const names = {
    mirror: mirror?.from ?? '--registry-mirror',
    insecure:
      flags.insecureRegistry === undefined ? 'EXECTL_INSECURE_REGISTRY' : '--insecure-registry',
  };
  const error = registrySettingsError({ mirror: mirror?.value, insecure }, names);
  if (error !== null) {
    throw usage(error, {
      hint: 'e.g. --registry-mirror http://127.0.0.1:5000 --insecure-registry 127.0.0.1:5000',
    });
  }
  return mirror === undefined ? { insecure } : { mirror: mirror.value, insecure };
}

/**
 * The data folder (`--data`, `--ephemeral`, their variables, else `$XDG_DATA_HOME/exectl`).
 * Flags outrank variables as a pair: `--ephemeral` beats EXECTL_DATA, and the two flags (or the
 * two variables) together are a contradiction.
 */
export function dataFolder(flags: Pick<ServeFlags, 'data' | 'ephemeral'>, env: Env): DataFolder {
  const fromFlags = chooseData(flags.data, flags.ephemeral === true, '--data', '--ephemeral');
  if (fromFlags !== undefined) return fromFlags;
  const ephemeralEnv = envFlag('EXECTL_EPHEMERAL', env.EXECTL_EPHEMERAL);
  const fromEnv = chooseData(
    env.EXECTL_DATA || undefined,
    ephemeralEnv,
    'EXECTL_DATA',
    'EXECTL_EPHEMERAL',
  );
  return fromEnv ?? { kind: 'dir', path: defaultDataDir(env) };
}

/** `$XDG_DATA_HOME/exectl`, with `~/.local/share` when the variable is unset or relative. */
export function defaultDataDir(env: Env): string {
  const xdg = env.XDG_DATA_HOME;
  // The XDG spec says relative values are invalid and must be ignored.
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(homeDir(env), '.local', 'share');
  return join(base, 'exectl');
}

function chooseData(
  path: string | undefined,
  ephemeral: boolean,
  dataName: string,
  ephemeralName: string,
): DataFolder | undefined {
  if (path !== undefined && ephemeral) {
    throw usage(`${dataName} and ${ephemeralName} cannot be used together`, {
      hint: 'keep the data in a folder, or in a temporary one removed at exit, not both',
    });
  }
  if (ephemeral) return { kind: 'ephemeral' };
  if (path === undefined) return undefined;
  if (path === '') throw usage(`${dataName} needs a folder`, { hint: 'e.g. --data ./exectl-data' });
  return { kind: 'dir', path };
}

/** `--authorized-key` (repeatable), else EXECTL_AUTHORIZED_KEY: files separated by `:`. */
function authorizedKeys(flags: ServeFlags, env: Env): string[] {
  if (flags.authorizedKey !== undefined) return flags.authorizedKey;
  const list = env.EXECTL_AUTHORIZED_KEY;
  return list === undefined || list === '' ? [] : list.split(':').filter((p) => p !== '');
}

/** A yes/no variable: `1`/`true`/`yes` or `0`/`false`/`no` (any case); empty means no. */
function envFlag(name: string, value: string | undefined): boolean {
  const normalized = (value ?? '').toLowerCase();
  if (['1', 'true', 'yes'].includes(normalized)) return true;
  if (['', '0', 'false', 'no'].includes(normalized)) return false;
  throw usage(`${name}="${value}" is not a yes/no value`, { hint: 'use 1 or 0' });
}

function listenAddress(source: Sourced<string>): ListenAddress {
  const parsed = parseListenAddress(source.value);
  if ('error' in parsed)
    throw usage(`${source.from}: ${parsed.error}`, { hint: listenHint(source) });
  return parsed;
}

function listenHint(source: Sourced<string>): string {
  const off = /ssh-listen|SSH_LISTEN/.test(source.from) ? ', or "off"' : '';
  return `use HOST:PORT, [IPv6]:PORT or PORT; port 0 picks a free one${off}`;
}

function ownerEmail(source: Sourced<string> | undefined): string | undefined {
  if (source === undefined) return undefined;
  try {
    return checkEmail(source.value);
  } catch (err) {
    // The service's own email rule, reported as what it is here: a bad flag.
    throw usage(`${source.from}: ${(err as Error).message}`, {
      hint: 'e.g. --owner you@example.com',
    });
  }
}

function rateLimit(source: Sourced<string>): RateLimit | null {
  const parsed = parseRateLimit(source.value);
  if (parsed !== null && 'error' in parsed) {
    throw usage(`${source.from}: ${parsed.error}`, {
      hint: 'N requests per DURATION (500ms, 30s, 15m, 1h, 7d…), e.g. 60/60s; 0 turns it off',
    });
  }
  return parsed;
}

/** `60 requests per 60s for each key`, with the duration as given; `off` for none. */
function rateLimitText(given: string, rate: RateLimit | null): string {
  if (rate === null) return 'off';
  const per = given.trim().slice(given.trim().indexOf('/') + 1);
  return `${rate.capacity} ${rate.capacity === 1 ? 'request' : 'requests'} per ${per} for each key`;
}

// `--max-vm-memory 8G --max-vm-cpus 4 --max-vm-disk 50G`: sizes as `resize` takes them.
function ceilings(
  memory: Sourced<string> | undefined,
  cpus: Sourced<string> | undefined,
  disk: Sourced<string> | undefined,
): Partial<VmCeilings> {
  const size = (source: Sourced<string>, min: number): number => {
    const bytes = parseSize(source.value);
    if (bytes === null || bytes < min) {
      throw usage(`${source.from}: invalid size "${source.value}"`, {
        hint: `a size such as 8G or 512M, at least ${min / 2 ** 20}M`,
      });
    }
    return bytes;
  };
  const cpuCount = (source: Sourced<string>): number => {
    const parsed = parseCpus(source.value);
    if (parsed === null) {
      throw usage(`${source.from}: invalid number of CPUs "${source.value}"`, {
        hint: 'a number such as 4 or 0.5',
      });
    }
    return parsed;
  };
  return {
    ...(memory === undefined ? {} : { memoryBytes: size(memory, MIN_MEMORY) }),
    ...(cpus === undefined ? {} : { cpus: cpuCount(cpus) }),
    ...(disk === undefined ? {} : { diskBytes: size(disk, MIN_DISK) }),
  };
}

function domain(source: Sourced<string>): string {
  if (!DOMAIN.test(source.value) || source.value.length > 253) {
    throw usage(`${source.from}: invalid domain "${source.value}"`, {
      hint: 'use lowercase DNS labels separated by dots, e.g. localhost or exectl.test',
    });
  }
  return source.value;
}

/** The dialect `--compat` names (SPEC §12), of those src/dialects.ts lists. */
function compatDialect(source: Sourced<string>): Dialect {
  const found = ALL_DIALECTS.find((d) => d.compat !== null && d.compat === source.value);
  if (found === undefined) {
    throw usage(`${source.from}: invalid value "${source.value}"`, {
      hint: `use ${COMPAT_NAMES.join(' or ')}`,
    });
  }
  return found;
}

function oneOf<T extends string>(source: Sourced<string>, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(source.value)) {
    throw usage(`${source.from}: invalid value "${source.value}"`, {
      hint: `use one of ${allowed.join(', ')}`,
    });
  }
  return source.value as T;
}

/** `ssh-listen` -> `EXECTL_SSH_LISTEN`. */
function envName(flag: string): string {
  return `EXECTL_${flag.toUpperCase().replace(/-/g, '_')}`;
}

const from = (value: string): Sourced<string> => ({ value, from: 'the default' });

function usage(message: string, options: { hint: string }): ExectlError {
  return new ExectlError('usage', message, options);
}
