// A real SSH front end on a loopback port, over a real SQLite store in a temp dir, driven with
// the real OpenSSH client. One harness per test file; close() removes everything it made.
import type { ServiceConfig } from '../../../src/service/config.js';
import { SignIns } from '../../../src/service/dashboard/sign-ins.js';
import type { ServiceDeps, ServiceEndpoints } from '../../../src/service/deps.js';
import { reflectionUrlOf } from '../../../src/service/reflection/urls.js';
import type { VmMachines, VmMachinesDeps } from '../../../src/service/vm/index.js';
import type { CommandRegistry } from '../../../src/service/dispatch/registry.js';
import { createExecHandler } from '../../../src/service/http/exec-handler.js';
import {
  defaultConnectionLimits,
  openFileLimit,
} from '../../../src/service/http/connection-caps.js';
import { listenHttp, type HttpListener } from '../../../src/service/http/http-server.js';
import { RateLimiter, type RateLimit } from '../../../src/service/rules/rate-limit.js';
import { TokenAuthenticator } from '../../../src/service/http/token-auth.js';
import {
  startSshFrontEnd,
  VmAddressListeners,
  type SshFrontEnd,
} from '../../../src/service/ssh/index.js';
import type { ConnectionLimits } from '../../../src/service/ssh/connection-limits.js';
import { openStore, type Account, type Store } from '../../../src/service/store/index.js';
import { parsePublicKey } from '../../../src/token/keys.js';
import { generateKey, run, type GeneratedKey, type RunResult } from '../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';
import { testServiceConfig } from '../../helpers/config.js';

export interface HarnessOptions {
  registry: CommandRegistry<ServiceDeps>;
  /** Starts the VM runtime; tests that never reach a VM may leave it out. */
  machines?: (deps: VmMachinesDeps) => Promise<VmMachines & Closable>;
  rateLimit?: RateLimit | null;
  commandDeadlineMs?: number;
  /** Also serve the real /exec endpoint on the same deps and the same rate limiter. */
  http?: boolean;
  /** Connection caps and login grace other than `exectl serve`'s. */
  limits?: Partial<ConnectionLimits>;
  /** Settings of the service besides the harness's own (`compat`, `domain`). */
  config?: Partial<ServiceConfig>;
}

export interface Closable {
  shutdown(): Promise<void>;
}

export interface SshHarness {
  dir: TempDir;
  store: Store;
  deps: ServiceDeps;
  frontEnd: SshFrontEnd;
  /** The limiter both front ends share, or null when rate limiting is off. */
  rateLimiter: RateLimiter | null;
  /** The /exec listener, when asked for. */
  http: HttpListener | undefined;
  /** Every log line the front end wrote, in order. */
  logs: string[];
  owner: { account: Account; key: GeneratedKey };
  hostKeyPath: string;
  /** Generates a key with ssh-keygen; `register` adds it to the owner's account. */
  newKey(
    name: string,
    opts?: { register?: boolean; kind?: GeneratedKey['kind'] },
  ): Promise<GeneratedKey>;
  /** Runs the OpenSSH client against the front end: `ssh <base options> [extra] 127.0.0.1 <command>`. */
  ssh(command: string | undefined, opts?: SshOptions): Promise<RunResult>;
  /** The arguments `ssh` would get, for tests that start ssh themselves (under a pty). */
  sshArgs(command: string | undefined, opts?: SshOptions): string[];
  /** Stops the front end and starts a new one on the same data folder and port. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface SshOptions {
  key?: GeneratedKey;
  /** Extra `ssh` options, placed before the host. */
  extra?: string[];
  input?: string;
}

/** A VM runtime for tests whose commands never reach a VM: any use is a test bug. */
const noMachines: VmMachines & Closable = {
  create: () => Promise.reject(new Error('this test started no VM runtime')),
  createInBackground: () => Promise.reject(new Error('this test started no VM runtime')),
  copy: () => Promise.reject(new Error('this test started no VM runtime')),
  restart: () => Promise.reject(new Error('this test started no VM runtime')),
  remove: () => Promise.reject(new Error('this test started no VM runtime')),
  exec: () => Promise.reject(new Error('this test started no VM runtime')),
  shell: () => {
    throw new Error('this test started no VM runtime');
  },
  session: () => {
    throw new Error('this test started no VM runtime');
  },
  stat: () => Promise.reject(new Error('this test started no VM runtime')),
  resize: () => Promise.reject(new Error('this test started no VM runtime')),
  pause: () => Promise.reject(new Error('this test started no VM runtime')),
  connect: () => Promise.reject(new Error('this test started no VM runtime')),
  deliverMail: () => Promise.reject(new Error('this test started no VM runtime')),
  shutdown: () => Promise.resolve(),
};

export async function startSshHarness(options: HarnessOptions): Promise<SshHarness> {
  const dir = await createTempDir('ssh');
  const logs: string[] = [];
  const config = testServiceConfig({
    sshListen: { host: '127.0.0.1', port: 0 },
    dataDir: dir.path,
    runtime: 'auto',
    rateLimit:
      options.rateLimit === undefined ? { capacity: 60, refillMs: 60_000 } : options.rateLimit,
    log: (line) => logs.push(line),
    ...(options.commandDeadlineMs === undefined
      ? {}
      : { commandDeadlineMs: options.commandDeadlineMs }),
    ...options.config,
  });
  const store = openStore(dir.join('exectl.db'));
  // Nothing listens on these unless the test asks: nothing may reach them by accident.
  const endpoints: ServiceEndpoints = {
    http: 'http://127.0.0.1:1',
    ssh: null,
    reflection: 'http://127.0.0.1:1',
  };
  const machines =
    options.machines === undefined
      ? noMachines
      : await options.machines({
          config,
          store,
          endpoints,
          reflectionUrl: (vm) => reflectionUrlOf(endpoints.reflection, vm.reflectionSecret),
        });
  // The lobby's harness: VMs of this server have no addresses of their own.
  const vmAddresses = new VmAddressListeners(false, store, config.log);
  const deps: ServiceDeps = {
    store,
    machines,
    config,
    endpoints,
    signIns: new SignIns(Date.now),
    vmSshAddresses: vmAddresses,
    now: Date.now,
  };
  const rateLimiter = config.rateLimit === null ? null : new RateLimiter(config.rateLimit);
  const hostKeyPath = dir.join('ssh_host_ed25519_key');
  const knownHosts = dir.join('known_hosts');

  const ownerKey = await generateKey(dir.path, 'ed25519', { name: 'owner' });
  const account = store.createAccount('owner@example.com', [keyRecord('laptop', ownerKey)]);

  const start = (port: number) =>
    startSshFrontEnd({
      deps,
      registry: options.registry,
      listen: { host: '127.0.0.1', port },
      hostKeyPath,
      rateLimiter,
      log: config.log,
      limits: options.limits,
      vmAddresses,
    });
  let frontEnd = await start(0);
  deps.endpoints.ssh = frontEnd.address;
  const shutdown = new AbortController();
  const http = options.http
    ? await listenHttp({
        name: '--listen',
        listen: config.listen,
        tls: null,
        route: createExecHandler({
          deps,
          registry: options.registry,
          auth: new TokenAuthenticator(store, deps.now),
          rateLimiter,
          shutdown: shutdown.signal,
        }),
        limits: defaultConnectionLimits(openFileLimit()),
        log: config.log,
      })
    : undefined;
  if (http !== undefined) deps.endpoints.http = http.url;

  const sshArgs = (command: string | undefined, opts: SshOptions = {}): string[] => [
    '-F',
    '/dev/null',
    '-o',
    'BatchMode=yes',
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    `UserKnownHostsFile=${knownHosts}`,
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    'LogLevel=ERROR',
    '-i',
    (opts.key ?? ownerKey).path,
    '-p',
    String(frontEnd.address.port),
    ...(opts.extra ?? []),
    '127.0.0.1',
    ...(command === undefined ? [] : [command]),
  ];

  const harness: SshHarness = {
    dir,
    store,
    deps,
    get frontEnd() {
      return frontEnd;
    },
    rateLimiter,
    http,
    logs,
    owner: { account, key: ownerKey },
    hostKeyPath,
    async newKey(name, opts = {}) {
      const key = await generateKey(dir.path, opts.kind ?? 'ed25519', { name });
      if (opts.register) store.addKey({ ...keyRecord(name, key), accountId: account.id });
      return key;
    },
    ssh: (command, opts = {}) =>
      run('ssh', sshArgs(command, opts), opts.input === undefined ? {} : { input: opts.input }),
    sshArgs,
    async restart() {
      const port = frontEnd.address.port;
      await frontEnd.close();
      frontEnd = await start(port);
    },
    async close() {
      shutdown.abort(new Error('test over'));
      await http?.close();
      await frontEnd.close();
      await machines.shutdown();
      store.close();
      await dir.remove();
    },
  };
  return harness;
}

function keyRecord(name: string, key: GeneratedKey) {
  const parsed = parsePublicKey(key.publicKeyLine);
  return {
    name,
    fingerprint: parsed.fingerprint,
    publicKey: key.publicKeyLine,
    keyType: parsed.type,
  };
}
