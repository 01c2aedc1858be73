// The one composition of the service (issue 29): createService wires the store, the VM
// machinery and every listener to the one command registry; startService adds what each start
// does before the server is ready (the seed, the owner account), for `exectl serve`, `serve
// import` and the library's startServer alike.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExectlError } from '../errors.js';
import { startAdminSocket } from './admin/index.js';
import { buildRegistry } from './commands/index.js';
import { dialectsOf, vmDomainOf, type ServiceConfig } from './config.js';
import type { ServiceDeps, ServiceEndpoints } from './deps.js';
import { createDashboard, dashboardOrigin, RequestHistory, SignIns } from './dashboard/index.js';
import { SIGN_IN_PATH } from './commands/browser.js';
import { createExecHandler } from './http/exec-handler.js';
import { createHealthHandler } from './http/healthz.js';
import { defaultConnectionLimits, openFileLimit } from './http/connection-caps.js';
import { refuseBusyAddresses } from './http/busy-addresses.js';
import { listenHttp, type HttpListener } from './http/http-server.js';
import { RateLimiter } from './rules/rate-limit.js';
import { FAILURES_PER_ADDRESS } from './http/failures-by-address.js';
import { TokenAuthenticator } from './http/token-auth.js';
import { createVmProxy } from './proxy/vm-proxy.js';
import { createRouter } from './http/router.js';
import { newLoopMarks } from './integrations/loop.js';
import { createEmailGateway } from './mail/email-gateway.js';
import { startSmtpListener } from './mail/smtp-listener.js';
import { reflectionUrlOf, startReflectionListener } from './reflection/index.js';
import { startSshFrontEnd, VmAddressListeners, withVmAddresses } from './ssh/index.js';
import { DATABASE_FILE, lockDataFolder, openStore, type Store } from './store/index.js';
import { applySeed, type Seed } from './seed/index.js';
import { startVmMachines, type RunningVmMachines, type VmListeners } from './vm/index.js';

/** A running service: where it listens, its store, and how to stop it. */
export interface RunningService {
  endpoints: ServiceEndpoints;
  /** Which VM runtime is in use, and why when it is not the one asked for. */
  runtime: { kind: 'bwrap' | 'process'; reason?: string; warnings: string[] };
  store: Store;
  /** The VM machinery, for work done outside a request (e.g. applying `--seed`). */
  machines: RunningVmMachines;
  /** SHA256 fingerprint of the SSH host key, or null when SSH is off. */
  sshHostKeyFingerprint: string | null;
  /** Each VM is an SSH destination at an address of its own (SPEC §6a; a root server). */
  vmSshAddresses: boolean;
  /**
   * From now on GET /healthz answers 200 (with `holdReady`; else it does once every listener
   * is up).
   */
  markReady(): void;
  /**
   * A one-time dashboard link (SPEC §11) for the account `email`, allowed every command, bound
   * to its first key (removing that key ends the session); null without such an account or key.
   */
  signInLink(email: string): string | null;
  /** Stops accepting, ends running commands and VM processes, closes the database. */
  close(): Promise<void>;
}

/** How {@link createService} starts. */
export interface StartOptions {
  /**
   * GET /healthz stays 503 `server is starting` until `markReady()`: for a caller with work to
   * do before the server is usable (applying a seed, bootstrapping the owner), so that a
   * script polling /healthz never sees a server that is up but not yet ready.
   */
  holdReady?: boolean;
}

/**
 * The composition root of `exectl serve`: takes the data folder's lock (refused while another
 * server holds it), opens the store in `config.dataDir`, starts the VM runtime and every
 * listener, and wires them to the one command registry. The data folder must exist;
 * bootstrapping accounts is the caller's (see accounts.ts).
 */
export async function createService(
  givenConfig: ServiceConfig,
  { holdReady = false }: StartOptions = {},
): Promise<RunningService> {
  // Every request line also feeds the dashboard's live log of each account's requests.
  const history = new RequestHistory();
  const config: ServiceConfig = { ...givenConfig, log: history.tap(givenConfig.log) };
  // Held until the very end of close(): one server per data folder (SPEC §7).
  const lock = lockDataFolder(config.dataDir, 'stop that server or use another --data');
  try {
    await refuseBusyAddresses(config);
  } catch (err) {
    lock.release();
    throw err;
  }
  let store: Store;
  try {
    store = openStore(join(config.dataDir, DATABASE_FILE));
  } catch (err) {
    lock.release();
    throw err;
  }
  const shutdown = new AbortController();
  const closers: (() => Promise<void> | void)[] = [() => lock.release(), () => store.close()];
  let closing: Promise<void> | undefined;
  // Set once every listener is up (or at markReady): GET /healthz answers 200 from then on.
  let ready = false;
  // Once only, however often it is called: listeners first (no new work), then VM processes,
  // then the database last.
  const close = () =>
    (closing ??= (async () => {
      shutdown.abort(
        new ExectlError('unavailable', 'server is shutting down', {
          hint: 'run the command again once the server is back',
          // Over HTTP: the keep-alive connection would otherwise hold the listener open until
          // the shutdown's grace period ends.
          headers: { Connection: 'close' },
        }),
      );
      for (const closeOne of [...closers].reverse()) await closeOne();
    })());

  try {
    // Filled in below as each listener comes up, before the server is ready; every reader
    // reads it at use. The VM machinery, started first, gets a read-only view of it.
    const endpoints: ServiceEndpoints = { http: '', ssh: null, reflection: '' };
    const listeners: VmListeners = {
      get http() {
        return endpoints.http;
      },
      get reflection() {
        return endpoints.reflection;
      },
    };
    const vmMachines = await startVmMachines({
      config,
      store,
      endpoints: listeners,
      reflectionUrl: (vm) => reflectionUrlOf(listeners.reflection, vm.reflectionSecret),
    });
    closers.push(() => vmMachines.shutdown());
    vmMachines.recoverCreations();
    // As root each VM is an SSH destination at an address of its own (SPEC §6a); its listener
    // is made and closed with the VM.
    const machineVms =
      vmMachines.runtime.kind === 'bwrap' && vmMachines.runtime.mode.kind === 'machine';
    const vmAddresses = new VmAddressListeners(machineVms, store, config.log);
    const machines = withVmAddresses(vmMachines, vmAddresses);

    // Before any front end: VMs are told the reflection listener's address (endpoints).
    // Every request the integrations forward carries it; the listeners refuse it (SPEC §6).
    const loopMarks = newLoopMarks();
    // Each listener counts its own connections against these caps.
    const connectionLimits = config.connections ?? defaultConnectionLimits(openFileLimit());
    // Machine VMs open their connections inside networks of their own: the server knows which
    // VM opened each, and binds every reflection URL to its VM (SPEC §5).
    const ownNetworks =
      machines.runtime.kind === 'bwrap' && machines.runtime.mode.kind === 'machine';
    const reflection = await startReflectionListener(
      { store, config, endpoints },
      loopMarks,
      connectionLimits,
      ownNetworks,
    );
    closers.push(() => reflection.close());
    endpoints.reflection = reflection.url;
    machines.acceptFromVms('reflection', reflection);
    const gateway = createEmailGateway({ store, log: config.log });
    closers.push(() => gateway.close());
    machines.acceptFromVms('gateway', gateway);

    const signIns = new SignIns(Date.now);
    const deps: ServiceDeps = {
      store,
      machines,
      config,
      endpoints,
      signIns,
      vmSshAddresses: vmAddresses,
      now: Date.now,
    };
    const registry = buildRegistry(dialectsOf(config));
    const rateLimiter = config.rateLimit === null ? null : new RateLimiter(config.rateLimit);
    // `--rate-limit 0` turns off the limit on failures per address too.
    const failureRate = config.rateLimit === null ? null : FAILURES_PER_ADDRESS;
    const auth = new TokenAuthenticator(store, deps.now, {
      failureRate,
      dialects: dialectsOf(config),
    });
    const exec = createExecHandler({
      deps,
      registry,
      auth,
      rateLimiter,
      shutdown: shutdown.signal,
    });
    const proxy = createVmProxy({ deps, auth, rateLimiter, loopMarks, limits: connectionLimits });
    closers.push(() => proxy.close());
    const dashboard = createDashboard({
      deps,
      registry,
      rateLimiter,
      log: config.log,
      history,
      shutdown: shutdown.signal,
    });
    const health = createHealthHandler({
      log: config.log,
      version: packageVersion(),
      ready: () => ready,
      shutdown: shutdown.signal,
    });
    const route = createRouter({ log: config.log, loopMarks, proxy, exec, health, dashboard });
    const http: HttpListener = await listenHttp({
      name: '--listen',
      listen: config.listen,
      tls: config.tls,
      route,
      upgrade: (req, socket, head) =>
        proxy.vmLabel(req) === null && dashboard.owns(req)
          ? dashboard.upgrade(req, socket, head)
          : proxy.upgrade(req, socket, head),
      claim: proxy,
      limits: connectionLimits,
      log: config.log,
    });
    closers.push(() => http.close());
    endpoints.http = http.url;
    machines.acceptFromVms('http', http);

    let sshHostKeyFingerprint: string | null = null;
    if (config.sshListen !== null) {
      const ssh = await startSshFrontEnd({
        deps,
        registry,
        listen: config.sshListen,
        hostKeyPath: join(config.dataDir, 'ssh_host_ed25519_key'),
        rateLimiter,
        log: config.log,
        vmAddresses,
      });
      closers.push(() => ssh.close());
      endpoints.ssh = ssh.address;
      sshHostKeyFingerprint = ssh.hostKeyFingerprint;
    }

    if (config.smtpListen != null) {
      const smtpDeps = { store, machines, vmDomain: vmDomainOf(config), log: config.log };
      const smtp = await startSmtpListener(smtpDeps, config.smtpListen);
      closers.push(() => smtp.close());
      endpoints.smtp = smtp.address;
    }

    // Last: `exectl serve accounts` finds the server only once it answers on every listener.
    const admin = await startAdminSocket({ dataDir: config.dataDir, store, log: config.log });
    closers.push(() => admin.close());

    ready = !holdReady;
    // In the background: the server answers at once, and a request for a VM not booted yet
    // boots it itself (machines.shutdown ends the boots).
    void machines.bootRunning();
    return {
      endpoints,
      runtime: machines.runtime,
      store,
      machines,
      sshHostKeyFingerprint,
      vmSshAddresses: vmAddresses.serving,
      markReady() {
        ready = true;
      },
      signInLink(email) {
        const account = store.findAccountByEmail(email);
        const key = account === undefined ? undefined : store.listKeys(account.id)[0];
        if (account === undefined || key === undefined) return null;
        const grant = {
          accountId: account.id,
          keyFingerprint: key.fingerprint,
          cmds: null,
          exp: null,
        };
        return `${dashboardOrigin(config, endpoints.http)}${SIGN_IN_PATH}${signIns.createLink(grant)}`;
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** How {@link startService} starts: {@link createService}'s config, then the start's own work. */
export interface StartServiceOptions<Owner> {
  config: ServiceConfig;
  /** Applied first (exectl-serve(1), SEED FILE); absent: none. */
  seed?: {
    document: Seed;
    /** Where the seed reports problems that do not stop it (a failed cleanup). */
    log: (line: string) => void;
    /** Stops a seed VM's setup script (the server is stopping); default: never. */
    signal?: AbortSignal;
    /** Told what the seed changed, before the owner is made. */
    applied?: (changes: string[]) => void;
  };
  /** Then the owner account (serve: on an empty folder only; the library: every start). */
  owner: (store: Store) => Owner | Promise<Owner>;
}

/** A service {@link startService} started, with what its owner step gave. */
export interface StartedService<Owner> {
  service: RunningService;
  owner: Owner;
}

/**
 * Starts the service and makes it ready: {@link createService} (GET /healthz 503 meanwhile),
 * the seed, the owner account, then ready, so that a script polling /healthz never sees a
 * server that is up but not yet usable. A failure of any step closes what was started.
 */
export async function startService<Owner>({
  config,
  seed,
  owner,
}: StartServiceOptions<Owner>): Promise<StartedService<Owner>> {
  const service = await createService(config, { holdReady: true });
  try {
    if (seed !== undefined) {
      const { store, machines, endpoints } = service;
      const target = {
        store,
        machines,
        endpoints,
        log: seed.log,
        allowPrivateTargets: config.allowPrivateTargets === true,
      };
      const signal = seed.signal ?? new AbortController().signal;
      const changes = await applySeed(seed.document, target, signal);
      seed.applied?.(changes);
    }
    const made = await owner(service.store);
    service.markReady();
    return { service, owner: made };
  } catch (err) {
    await service.close();
    throw err;
  }
}

/** exectl's version, from package.json (src/service/ and dist/bundle/ both sit two levels in). */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
