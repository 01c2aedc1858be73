import { dialectsFor, type Dialect } from '../dialects.js';
import type { FaultTable } from './dispatch/faults.js';
import type { VmCeilings } from './rules/ceilings.js';
import type { ConnectionLimits } from './http/connection-caps.js';
import type { RateLimit } from './rules/rate-limit.js';
import type { RequestLogEntry } from './request-log.js';

/** A host and port to listen on. Port 0 asks the OS for a free port (tests use it). */
export interface ListenAddress {
  host: string;
  port: number;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * Receives one finished log line and its level; the service never writes to the console
 * itself, and the sink (the CLI) decides what to show. Request lines are `info`, or `error`
 * for a 500; problems outside a request are `warn` or `error`.
 */
export type LogSink = (line: string, level?: LogLevel, request?: LoggedRequest) => void;

/**
 * The request a line reports, as data, for a sink that keeps requests (the dashboard's live
 * log): given only with the one line per request of SPEC §7. `at`: ms since the epoch.
 */
export interface LoggedRequest {
  entry: RequestLogEntry;
  at: number;
}

/** Everything `createService` needs; the CLI builds it from flags, env and defaults. */
export interface ServiceConfig {
  listen: ListenAddress;
  /** null when `--ssh-listen off`. */
  sshListen: ListenAddress | null;
  reflectionListen: ListenAddress;
  /** `--smtp-listen`: mail for VMs (SPEC §4b); absent or null (`off`): no SMTP listener. */
  smtpListen?: ListenAddress | null;
  /** Holds exectl.db, the SSH host key and the VM disks. Must exist. */
  dataDir: string;
  domain: string;
  /**
   * `--vm-domain`: VM tokens are signed for `v0@<vm>.<vm-domain>` and the proxy answers
   * `<vm>.<vm-domain>`; absent: {@link domain}.
   */
  vmDomain?: string;
  /**
   * `--compat`: the other names the server answers to beside its own (SPEC §12, the table of
   * src/dialects.ts), e.g. `exe.dev`; absent or null: exectl's own names only.
   */
  compat?: string | null;
  tls: { cert: Buffer; key: Buffer } | null;
  runtime: 'auto' | 'bwrap' | 'process';
  /** null disables rate limiting (`--rate-limit 0`). */
  rateLimit: RateLimit | null;
  log: LogSink;
  /** Per-command deadline (SPEC §2: 30 s). Tests shorten it. */
  commandDeadlineMs: number;
  /** How long a setup script may run in the background (SPEC §4: 15 minutes). Tests shorten it. */
  setupDeadlineMs?: number;
  /**
   * `serve --allow-private-targets`: integrations may forward to loopback, link-local,
   * unspecified and the host's own addresses (SPEC §6). Absent or false, they may not.
   */
  allowPrivateTargets?: boolean;
  /**
   * The free space the data folder keeps (SPEC §7); absent: disk/budget.ts's `diskFloor` of its
   * file system. Tests on a small file system set it.
   */
  diskFloorBytes?: number;
  /**
   * The operator's ceilings on VM limits (`--max-vm-cpus`, `--max-vm-memory`, `--max-vm-disk`);
   * each one absent is the host's size (rules/ceilings.ts).
   */
  vmCeilings?: Partial<VmCeilings>;
  /**
   * `--max-vms-per-account`: the most VMs one account may own (SPEC §7); absent:
   * {@link DEFAULTS}' 32.
   */
  maxVmsPerAccount?: number;
  /**
   * Failures to inject into `/exec` requests (SPEC §10). Only the library's startServer sets
   * it, never a flag or a request: absent, no request can meet a fault.
   */
  faults?: FaultTable;
  /**
   * Caps on each HTTP listener's open connections and its idle timeouts (SPEC §7); absent:
   * `defaultConnectionLimits` of the process's descriptor limit. Tests set small ones.
   */
  connections?: ConnectionLimits;
  /**
   * Where `new --image` pulls from (SPEC §4a): `--registry-mirror` stands in for Docker Hub,
   * `--insecure-registry` registries are spoken to without TLS verification.
   */
  registries?: { mirror?: string; insecure?: readonly string[] };
}

export const DEFAULTS = {
  listen: '127.0.0.1:7070',
  sshListen: '127.0.0.1:7022',
  reflectionListen: '127.0.0.1:7071',
  smtpListen: '127.0.0.1:7025',
  domain: 'localhost',
  rateLimit: '60/60s',
  commandDeadlineMs: 30_000,
  bodyLimit: 65_536,
  maxVmsPerAccount: 32,
} as const;

/** The domain of VM tokens and proxy hosts: `--vm-domain`, else `--domain`. */
export function vmDomainOf(config: Pick<ServiceConfig, 'domain' | 'vmDomain'>): string {
  return config.vmDomain ?? config.domain;
}

/** The dialects the server speaks (src/dialects.ts): exectl's, plus `--compat`'s. */
export function dialectsOf(config: Pick<ServiceConfig, 'compat'>): readonly Dialect[] {
  return dialectsFor(config.compat ?? null);
}

/**
 * Parses `HOST:PORT`, `[IPv6]:PORT` or a bare `PORT` (which binds loopback: the server is
 * never exposed unless the user names an address). Returns an error sentence on bad input.
 */
export function parseListenAddress(text: string): ListenAddress | { error: string } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text) ?? /^()()(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) {
    return { error: `invalid listen address "${text}": expected HOST:PORT such as 127.0.0.1:7070` };
  }
  const host = m[1] || m[2] || '127.0.0.1';
  return { host, port };
}
