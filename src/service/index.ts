import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExectlError } from '../errors.js';
import { startAdminSocket } from './admin/index.js';
import { buildRegistry } from './commands/index.js';
import type { ServiceConfig } from './config.js';
import type { ServiceDeps, ServiceEndpoints } from './deps.js';
import { createExecHandler } from './http/exec-handler.js';
import { createHealthHandler } from './http/healthz.js';
import { sendError } from './http/error-funnel.js';
import { defaultConnectionLimits, openFileLimit } from './http/connection-caps.js';
import { listenHttp, type HttpListener } from './http/http-server.js';
import { RateLimiter } from './rules/rate-limit.js';
import { FAILURES_PER_ADDRESS } from './http/failures-by-address.js';
import { TokenAuthenticator } from './http/token-auth.js';
import { createVmProxy } from './http/vm-proxy.js';
import { loopOf, newLoopMarks } from './integrations/loop.js';
import { reflectionUrlOf, startReflectionListener } from './reflection/index.js';
import { newLogEntry, runLogged } from './request-log.js';
import { startSshFrontEnd } from './ssh/index.js';
import { DATABASE_FILE, lockDataFolder, openStore, type Store } from './store/index.js';
import { startVmMachines, type RunningVmMachines } from './vm/index.js';

// The one door from the CLI into the service (only `exectl serve` passes it): what serve
// needs to read its flags, prepare a data folder, bootstrap the owner, apply a seed and start.
export {
  DEFAULTS,
  parseListenAddress,
  type ListenAddress,
  type LogLevel,
  type LogSink,
  type ServiceConfig,
} from './config.js';
export { parseRateLimit, type RateLimit } from './rules/rate-limit.js';
export type { VmCeilings } from './rules/ceilings.js';
export { MIN_DISK, MIN_MEMORY, parseCpus, parseSize } from './rules/limit-values.js';
export { checkEmail, quote } from './rules/validate.js';
export {
  DATABASE_FILE,
  emptyDataFolder,
  lockDataFolder,
  openStore,
  type Store,
} from './store/index.js';
export {
  bootstrapOwner,
  ensureAccount,
  hasNoAccounts,
  parseKeyLines,
  type KeyLine,
  type RejectedKeyLine,
} from './accounts.js';
export { applySeed, exportSeed, parseSeed, type Seed } from './seed/index.js';
export {
  addAccount,
  adminSocketPath,
  answerError,
  checkAccountEmail,
  listAccountSummaries,
  MAX_ADMIN_REQUEST_BYTES,
  removeAccountByEmail,
  type AccountSummary,
  type AddedAccount,
  type AdminAnswer,
  type AdminRequest,
  type RemovedAccountSummary,
} from './admin/index.js';
export { releaseVmIdRanges } from './vm/index.js';

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
  /**
   * From now on GET /healthz answers 200 (with `holdReady`; else it does once every listener
   * is up).
   */
  markReady(): void;
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
  config: ServiceConfig,
  { holdReady = false }: StartOptions = {},
): Promise<RunningService> {
  // Held until the very end of close(): one server per data folder (SPEC §7).
  const lock = lockDataFolder(config.dataDir, 'stop that server or use another --data');
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
    const endpoints: ServiceEndpoints = { http: '', ssh: null, reflection: '' };
    const machines = await startVmMachines({
      config,
      store,
      endpoints,
      reflectionUrl: (vm) => reflectionUrlOf(endpoints.reflection, vm.reflectionSecret),
    });
    closers.push(() => machines.shutdown());
    machines.recoverCreations();

    // Before any front end: VMs are told the reflection listener's address (endpoints).
    // Every request the integrations forward carries it; the listeners refuse it (SPEC §6).
    const loopMarks = newLoopMarks();
    // Each listener counts its own connections against these caps.
    const connectionLimits = config.connections ?? defaultConnectionLimits(openFileLimit());
    const reflection = await startReflectionListener(
      { store, config, endpoints },
      loopMarks,
      connectionLimits,
    );
    closers.push(() => reflection.close());
    endpoints.reflection = reflection.url;
    machines.acceptFromVms('reflection', reflection);

    const deps: ServiceDeps = { store, machines, config, endpoints, now: Date.now };
    const registry = buildRegistry();
    const rateLimiter = config.rateLimit === null ? null : new RateLimiter(config.rateLimit);
    // `--rate-limit 0` turns off the limit on failures per address too.
    const failureRate = config.rateLimit === null ? null : FAILURES_PER_ADDRESS;
    const auth = new TokenAuthenticator(store, deps.now, { failureRate });
    const exec = createExecHandler({
      deps,
      registry,
      auth,
      rateLimiter,
      shutdown: shutdown.signal,
    });
    const proxy = createVmProxy({ deps, auth, rateLimiter, loopMark: loopMarks.proxy });
    closers.push(() => proxy.close());
    // A request no route takes: one log line like every request, answered by the funnel.
    const refuse = (req: IncomingMessage, res: ServerResponse, refusal: ExectlError) =>
      runLogged(
        config.log,
        newLogEntry('http', `${req.method} ${(req.url ?? '/').split('?')[0]}`),
        async () => {
          throw refusal;
        },
        (err) => sendError(res, err),
      );

    const health = createHealthHandler({
      log: config.log,
      version: packageVersion(),
      ready: () => ready,
      shutdown: shutdown.signal,
    });

    const route = (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      const loop = loopOf(req, loopMarks);
      if (loop !== null) return refuse(req, res, loop);
      // `Host: <vm>.<domain>` is the VM's address, whatever the path (SPEC §6).
      const vm = proxy.vmLabel(req);
      if (vm !== null) return proxy.forward(req, res, vm);
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/exec') return exec(req, res);
      if (path === '/healthz') return health(req, res);
      return refuse(
        req,
        res,
        new ExectlError('not_found', 'not found', { hint: 'commands go to POST /exec' }),
      );
    };
    const http: HttpListener = await listenHttp({
      name: '--listen',
      listen: config.listen,
      tls: config.tls,
      route,
      upgrade: proxy.upgrade,
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
      });
      closers.push(() => ssh.close());
      endpoints.ssh = ssh.address;
      sshHostKeyFingerprint = ssh.hostKeyFingerprint;
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
      markReady() {
        ready = true;
      },
      close,
    };
  } catch (err) {
    await close();
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
