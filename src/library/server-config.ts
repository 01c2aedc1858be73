// startServer's options (SPEC §10: every `serve` flag as an option) turned into the service's
// configuration, checked as `exectl serve` checks its flags.
import { COMPAT_NAMES, dialectsFor } from '../dialects.js';
import { ExectlError } from '../errors.js';
import {
  DEFAULTS,
  MIN_DISK,
  MIN_MEMORY,
  parseCpus,
  parseListenAddress,
  parseRateLimit,
  parseSize,
  registrySettingsError,
  type FaultTable,
  type ListenAddress,
  type ServiceConfig,
  type VmCeilings,
} from '../service/index.js';
import type { StartServerOptions } from './options.js';

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
    smtpListen: options.smtpListen === 'off' ? null : address('smtpListen', options.smtpListen),
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
    maxVmsPerAccount: vmCount(options.maxVmsPerAccount),
    registries: registriesOf(options),
    faults,
  };
}

function registriesOf(options: StartServerOptions): ServiceConfig['registries'] {
  const settings = { mirror: options.registryMirror, insecure: options.insecureRegistries ?? [] };
  const error = registrySettingsError(settings, {
    mirror: 'registryMirror',
    insecure: 'insecureRegistries',
  });
  if (error !== null) throw invalid('registries', error);
  return settings.mirror === undefined ? { insecure: settings.insecure } : settings;
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

function vmCount(count: number | undefined): number {
  if (count === undefined) return DEFAULTS.maxVmsPerAccount;
  if (!Number.isSafeInteger(count) || count < 1) {
    throw invalid('maxVmsPerAccount', 'expected a whole number of VMs, at least 1');
  }
  return count;
}

function address(option: string, text = '127.0.0.1:0'): ListenAddress {
  const parsed = parseListenAddress(text);
  if ('error' in parsed) throw invalid(option, parsed.error);
  return parsed;
}

function invalid(option: string, problem: string): ExectlError {
  return new ExectlError('usage', `startServer option ${option}: ${problem}`);
}
