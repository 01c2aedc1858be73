// startServer's options (SPEC §10: every `serve` flag as an option) turned into the service's
// configuration, checked as `exectl serve` checks its flags.
import { COMPAT_NAMES, dialectsFor } from '../dialects.js';
import { ExectlError } from '../errors.js';
import {
  DEFAULTS,
  parseListenAddress,
  type ListenAddress,
  type LogSink,
  type ServiceConfig,
} from '../service/config.js';
import type { FaultTable } from '../service/dispatch/faults.js';
import type { VmCeilings } from '../service/rules/ceilings.js';
import { MIN_DISK, MIN_MEMORY, parseCpus, parseSize } from '../service/rules/limit-values.js';
import { parseRateLimit } from '../service/rules/rate-limit.js';

/** What `startServer` takes; every field is optional. */
export interface StartServerOptions {
  /** HTTP listener for /exec and the VM proxy. Default `127.0.0.1:0` (a free port). */
  listen?: string;
  /** SSH listener, or `off`. Default `127.0.0.1:0`. */
  sshListen?: string;
  /** Reflection listener. Default `127.0.0.1:0`. */
  reflectionListen?: string;
  /** A data folder to use and keep (its parent must exist). Default: a temporary one, removed by `stop()`. */
  data?: string;
  /** Default `localhost` (`exe.dev` with `compat: 'exe.dev'`). */
  domain?: string;
  /** The domain of VM tokens and VM hosts. Default: `domain` (`exe.xyz` with `compat`). */
  vmDomain?: string;
  /**
   * As `serve --compat`: also speak the real service's names (`exe0.` tokens, `exe0-to-exe1`,
   * `X-ExeDev-*` proxy headers, `X-Exe-Exit`; SPEC §12), for code written for it. Default none.
   */
  compat?: 'exe.dev';
  /**
   * The owner account, made at each start if missing and given the owner key if it lacks it
   * (beside a seed's accounts). Default `owner@localhost`.
   */
  owner?: string;
  /** The owner's private key file (unencrypted). Default: a new ed25519 pair. */
  ownerKey?: string;
  /** More public key lines for the owner account, beside `ownerKey`'s. */
  authorizedKeys?: string[];
  /** Serve HTTPS with this certificate and key (PEM). */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /**
   * VM runtime. Default `process`, unlike `exectl serve`: VM commands run as plain processes
   * of your user — a test suite's own code runs so anyway, and a server starts in
   * milliseconds. Choose `auto` or `bwrap` to test under the sandbox.
   */
  runtime?: 'auto' | 'bwrap' | 'process';
  /** `N/DURATION`, or `0` for none. Default `0`: tests send many requests with one key. */
  rateLimit?: string;
  /** A seed (exectl-serve(1), SEED FILE): its JSON text or the parsed object. */
  seed?: string | object;
  /** Receives the server's log lines. Default: none are kept. */
  log?: LogSink;
  /** The per-command deadline in ms. Default 30000 (SPEC §2). */
  commandDeadlineMs?: number;
  /**
   * As `serve --allow-private-targets`: integrations may forward to loopback, link-local and
   * this host's own addresses, such as a stub API your test starts on 127.0.0.1. Default false.
   */
  allowPrivateTargets?: boolean;
  /** Most memory a VM may get, as `resize` takes sizes (`8G`). Default: the host's memory. */
  maxVmMemory?: string;
  /** Most CPUs a VM may get (`4`, `0.5`). Default: the host's CPU count. */
  maxVmCpus?: string;
  /** Largest VM disk (`50G`). Default: the size of the data folder's file system. */
  maxVmDisk?: string;
}

/** The service configuration for `options` on `dataDir`, with `faults` wired in. */
export function serviceConfigFor(
  options: StartServerOptions,
  dataDir: string,
  faults: FaultTable,
): ServiceConfig {
  const rate = parseRateLimit(options.rateLimit ?? '0');
  if (rate !== null && 'error' in rate) throw invalid('rateLimit', rate.error);
  const compat = options.compat ?? null;
  if (compat !== null && !COMPAT_NAMES.includes(compat)) {
    throw invalid('compat', `expected ${COMPAT_NAMES.join(' or ')}`);
  }
  const dialect = dialectsFor(compat).at(-1)!;
  const domain = options.domain ?? dialect.domain;
  return {
    listen: address('listen', options.listen),
    sshListen: options.sshListen === 'off' ? null : address('sshListen', options.sshListen),
    reflectionListen: address('reflectionListen', options.reflectionListen),
    dataDir,
    domain,
    vmDomain: options.vmDomain ?? dialect.vmDomain ?? domain,
    compat,
    tls:
      options.tls === undefined
        ? null
        : { cert: Buffer.from(options.tls.cert), key: Buffer.from(options.tls.key) },
    runtime: options.runtime ?? 'process',
    rateLimit: rate,
    log: options.log ?? (() => {}),
    commandDeadlineMs: options.commandDeadlineMs ?? DEFAULTS.commandDeadlineMs,
    allowPrivateTargets: options.allowPrivateTargets === true,
    vmCeilings: ceilingsOf(options),
    faults,
  };
}

function ceilingsOf(options: StartServerOptions): Partial<VmCeilings> {
  const size = (option: string, text: string, min: number) => {
    const bytes = parseSize(text);
    if (bytes === null || bytes < min) {
      throw invalid(option, `expected a size such as 8G, at least ${min / 2 ** 20}M`);
    }
    return bytes;
  };
  const { maxVmMemory, maxVmCpus, maxVmDisk } = options;
  const cpus = maxVmCpus === undefined ? undefined : parseCpus(maxVmCpus);
  if (cpus === null) throw invalid('maxVmCpus', 'expected a number of CPUs such as 4 or 0.5');
  return {
    ...(maxVmMemory === undefined
      ? {}
      : { memoryBytes: size('maxVmMemory', maxVmMemory, MIN_MEMORY) }),
    ...(cpus === undefined ? {} : { cpus }),
    ...(maxVmDisk === undefined ? {} : { diskBytes: size('maxVmDisk', maxVmDisk, MIN_DISK) }),
  };
}

function address(option: string, text = '127.0.0.1:0'): ListenAddress {
  const parsed = parseListenAddress(text);
  if ('error' in parsed) throw invalid(option, parsed.error);
  return parsed;
}

function invalid(option: string, problem: string): ExectlError {
  return new ExectlError('usage', `startServer option ${option}: ${problem}`);
}
