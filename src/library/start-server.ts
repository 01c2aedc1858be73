// startServer (SPEC §10): the whole service started in this process for a test suite — a
// temporary data folder and free loopback ports by default, an owner with a key pair to sign
// with, tokens on demand, injected faults, reset, export, and a stop that leaves nothing behind.
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { COMMAND_CATALOG } from '../command-catalog.js';
import { ExectlError } from '../errors.js';
import { fsCause } from '../fs-cause.js';
import {
  emptyDataFolder,
  ensureAccount,
  exportSeed,
  FaultTable,
  parseRegistrableKey,
  parseSeed,
  releaseVmIdRanges,
  startService,
  type RunningService,
  type Seed,
  type ServiceConfig,
} from '../service/index.js';
import type { FaultSpec, SeedDocument } from '../service/public-types.js';
import { mintSvc0 } from '../token/mint.js';
import { serializePermissions } from '../token/permissions.js';
import { ownerKey, type OwnerKey } from './owner-key.js';
import type { StartServerOptions } from './options.js';
import { serviceConfigFor } from './server-config.js';

/** What `mint` puts in a token; absent fields get the defaults below. */
export interface MintPermissions {
  /** Unix seconds. Default: an hour from now. */
  exp?: number;
  nbf?: number;
  /** Command paths. Default: every command of the service. */
  cmds?: string[];
  /** Any JSON value, carried verbatim to a VM's server (`X-Exectl-Token-Ctx`). */
  ctx?: unknown;
}

/** A running embedded server. */
export interface RunningServer {
  /** The HTTP listener: `/exec` and the VM proxy, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** The SSH listener's port, or null with `sshListen: 'off'`. */
  readonly sshPort: number | null;
  /** The SMTP listener's port (mail for VMs, SPEC §4b), or null with `smtpListen: 'off'`. */
  readonly smtpPort: number | null;
  readonly reflectionUrl: string;
  readonly dataDir: string;
  /** The owner account's email. */
  readonly owner: string;
  readonly ownerKey: Omit<OwnerKey, 'signer'>;
  /** A svc0 token signed with the owner's key; with `vm`, a VM token for its address. */
  mint(permissions?: MintPermissions, options?: { vm?: string }): Promise<string>;
  /** Empties the data folder (as `exectl serve reset`) and starts again on the same ports. */
  reset(): Promise<void>;
  /** The state as a `--seed` document (as `exectl serve export`). */
  export(options?: { withSecrets?: boolean }): SeedDocument;
  /** Failures injected into matching `/exec` requests of this server only. */
  readonly faults: { add(fault: FaultSpec): void; clear(): void };
  /** Stops the server; removes the temporary data folder and generated key. */
  stop(): Promise<void>;
}

const EVERY_COMMAND = COMMAND_CATALOG.map((entry) => entry.path);

/** Starts a server (see {@link StartServerOptions}); resolves once every listener is up. */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const seed = options.seed === undefined ? undefined : seedOf(options.seed);
  const scratch = await mkdtemp(join(tmpdir(), 'exectl-lib-'));
  try {
    const dataDir = options.data === undefined ? join(scratch, 'data') : resolve(options.data);
    makePrivateFolder(dataDir);
    const key = await ownerKey(options.ownerKey, scratch);
    const owner = options.owner ?? 'owner@localhost';
    const ownerKeys = [key.publicKey, ...(options.authorizedKeys ?? [])].map((line) => ({
      key: parseRegistrableKey(line),
    }));
    const faults = new FaultTable();
    let config = serviceConfigFor(options, dataDir, faults);
    const start = async (): Promise<RunningService> => {
      const { service } = await startService({
        config,
        seed: seed === undefined ? undefined : { document: seed, log: config.log },
        // At every start, not only on an empty folder as `exectl serve` does: `mint` signs
        // with this key, which a seed (or a kept folder's earlier key pair) would leave out.
        owner: (store) => ensureAccount(store, owner, ownerKeys),
      });
      return service;
    };
    let service = await start();
    // `reset` starts again where the first start listened, so the URLs stay true.
    config = { ...config, ...boundAddresses(service, config) };
    const { signer, ...publicHalf } = key;
    const domain = config.domain;
    const vmDomain = config.vmDomain ?? domain;
    return {
      get url() {
        return service.endpoints.http;
      },
      get sshPort() {
        return service.endpoints.ssh?.port ?? null;
      },
      get smtpPort() {
        return service.endpoints.smtp?.port ?? null;
      },
      get reflectionUrl() {
        return service.endpoints.reflection;
      },
      dataDir,
      owner,
      ownerKey: publicHalf,
      mint(permissions = {}, { vm } = {}) {
        const payload = serializePermissions({
          exp: permissions.exp ?? Math.floor(Date.now() / 1000) + 3600,
          nbf: permissions.nbf,
          cmds: permissions.cmds ?? EVERY_COMMAND,
          ctxRaw: permissions.ctx === undefined ? undefined : JSON.stringify(permissions.ctx),
        });
        return mintSvc0(
          payload,
          signer,
          vm === undefined ? `v0@${domain}` : `v0@${vm}.${vmDomain}`,
        );
      },
      async reset() {
        await service.close();
        await releaseVmIdRanges(dataDir);
        emptyDataFolder(dataDir);
        service = await start();
      },
      export: ({ withSecrets = false } = {}) => exportSeed(service.store, { withSecrets }),
      faults: { add: (fault) => faults.add(fault), clear: () => faults.clear() },
      async stop() {
        await service.close();
        await rm(scratch, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(scratch, { recursive: true, force: true });
    throw err;
  }
}

function seedOf(seed: string | object): Seed {
  return parseSeed(typeof seed === 'string' ? seed : JSON.stringify(seed));
}

/** The listeners' actual addresses (the ports the OS chose for `:0`). */
function boundAddresses(service: RunningService, config: ServiceConfig): Partial<ServiceConfig> {
  const port = (url: string) => Number(new URL(url).port);
  return {
    listen: { ...config.listen, port: port(service.endpoints.http) },
    reflectionListen: { ...config.reflectionListen, port: port(service.endpoints.reflection) },
    sshListen: service.endpoints.ssh,
    smtpListen: service.endpoints.smtp ?? null,
  };
}

/** Creates `path` (0700) unless it exists; its parent must exist. */
function makePrivateFolder(path: string): void {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw new ExectlError('usage', `cannot create the data folder ${path}: ${fsCause(err)}`);
  }
}
