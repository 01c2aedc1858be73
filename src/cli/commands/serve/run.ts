// `exectl serve` from flags to a running server and back (SPEC §7): check every input, prepare
// the data folder, start the service, apply the seed, bootstrap the owner, show the banner,
// then wait for SIGINT/SIGTERM and stop cleanly.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { ExectlError } from '../../../errors.js';
import {
  DEFAULTS,
  type LogLevel,
  type ServiceConfig,
  createService,
  type RunningService,
  applySeed,
  parseSeed,
  type Seed,
} from '../../../service/index.js';
import type { PublicKey } from '../../../token/keys.js';
import type { CommandOutcome } from '../../command.js';
import type { CliContext } from '../../context.js';
import { PLAIN_STYLE, styleFor, warn } from '../../output.js';
import { renderBanner } from './banner.js';
import { closeInheritedDescriptors } from './inherited-fds.js';
import { openFolderWarning, prepareDataFolder, readUserFile, readUserText } from './data.js';
import {
  defaultDataDir,
  resolveServeSettings,
  type ServeFlags,
  type ServeSettings,
} from './options.js';
import { bootstrapOwnerAccount, readKeyFiles } from './owner.js';
import { listenForStop, type SignalSource } from './signals.js';

/** Runs the server until a stop signal; resolves once everything is closed (exit 0). */
export async function runServe(
  ctx: CliContext,
  flags: ServeFlags,
  signals: SignalSource,
): Promise<CommandOutcome> {
  const settings = resolveServeSettings(flags, ctx.env);
  // Every file is read and checked before anything starts: a typo fails at once, with
  // nothing to undo.
  const tls = settings.tls === null ? null : await readTls(settings.tls);
  const seed =
    settings.seedPath === undefined ? undefined : await readSeed(settings.seedPath, '--seed');
  const authorizedKeys =
    settings.authorizedKeys.length === 0
      ? undefined
      : await readKeyFiles(settings.authorizedKeys, '--authorized-key');

  // Before anything is started: whatever started us keeps its descriptors from our VMs.
  closeInheritedDescriptors(ctx.env);
  const data = await prepareDataFolder(settings.data);
  const openFolder = data.ephemeral ? undefined : openFolderWarning(data.path);
  if (openFolder !== undefined) warn(ctx, openFolder);
  const stop = listenForStop(signals, () => {
    ctx.stderr.write('exectl: forced to stop\n');
    data.discard();
  });
  try {
    // Healthy once the seed is applied and the owner is there, not as soon as it listens.
    const service = await createService(serviceConfig(ctx, settings, data.path, tls), {
      holdReady: true,
    });
    try {
      try {
        await start(ctx, service, settings, seed, authorizedKeys, data, stop.requested);
      } catch (err) {
        // Stopped while starting (a seed VM's setup script is cut short): a plain stop.
        if (stop.received === undefined) throw err;
      }
      const signal = await stop.requested;
      ctx.stderr.write(
        `exectl: ${signal}: stopping — finishing running commands (again to force)\n`,
      );
    } finally {
      await service.close();
    }
    ctx.stderr.write('exectl: stopped\n');
  } finally {
    stop.dispose();
    data.discard();
  }
  return undefined;
}

async function start(
  ctx: CliContext,
  service: RunningService,
  settings: ServeSettings,
  seed: Seed | undefined,
  authorizedKeys: PublicKey[] | undefined,
  data: { path: string; ephemeral: boolean },
  stopRequested: Promise<unknown>,
): Promise<void> {
  if (seed !== undefined) {
    // A stop during a VM's setup script ends it rather than waiting for it.
    const abort = new AbortController();
    void stopRequested.then(() => abort.abort(new Error('server stopping')));
    const log = (line: string) => ctx.stderr.write(`exectl: seed: ${line}\n`);
    const { store, machines, endpoints } = service;
    const target = {
      store,
      machines,
      endpoints,
      log,
      allowPrivateTargets: settings.allowPrivateTargets,
    };
    const changes = await applySeed(seed, target, abort.signal);
    const summary = changes.length === 0 ? 'nothing to change' : `${changes.length} change(s)`;
    ctx.stderr.write(`exectl: seed ${settings.seedPath}: ${summary}\n`);
    for (const change of changes) ctx.stderr.write(`  ${change}\n`);
  }
  const owner = await bootstrapOwnerAccount(ctx, service.store, settings, authorizedKeys);
  service.markReady();
  const style = ctx.color && ctx.stderr.isTTY === true ? await styleFor(ctx) : PLAIN_STYLE;
  ctx.stderr.write(
    renderBanner(
      {
        http: service.endpoints.http,
        ssh: service.endpoints.ssh,
        sshHostKey: service.sshHostKeyFingerprint,
        reflection: service.endpoints.reflection,
        dataDir: data.path,
        dataIsDefault: data.path === defaultDataDir(ctx.env),
        ephemeral: data.ephemeral,
        runtime: service.runtime,
        domain: settings.domain,
        vmDomain: settings.vmDomain,
        compat: settings.compat,
        rateLimit: settings.rateLimitShown,
        owner,
        accounts: service.store.listAccounts().length,
        client: (await isOnPath('exectl', ctx.env.PATH)) ? 'exectl' : 'npx exectl',
        dashboardLink: service.signInLink(owner.email),
      },
      style,
    ),
  );
}

/** From the most to the least verbose; `--log-level` shows its own level and those after it. */
const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** The service's configuration from the settings (serve, and `serve import`'s own service). */
export function serviceConfig(
  ctx: CliContext,
  settings: ServeSettings,
  dataDir: string,
  tls: ServiceConfig['tls'],
): ServiceConfig {
  const threshold = LOG_LEVELS.indexOf(settings.logLevel);
  return {
    listen: settings.listen,
    sshListen: settings.sshListen,
    reflectionListen: settings.reflectionListen,
    dataDir,
    domain: settings.domain,
    vmDomain: settings.vmDomain,
    compat: settings.compat,
    tls,
    runtime: settings.runtime,
    rateLimit: settings.rateLimit,
    log: (line, level = 'info') => {
      if (LOG_LEVELS.indexOf(level) >= threshold) ctx.stderr.write(`${line}\n`);
    },
    commandDeadlineMs: DEFAULTS.commandDeadlineMs,
    allowPrivateTargets: settings.allowPrivateTargets,
    vmCeilings: settings.vmCeilings,
  };
}

async function readTls(paths: {
  certPath: string;
  keyPath: string;
}): Promise<ServiceConfig['tls']> {
  return {
    cert: await readUserFile(paths.certPath, '--tls-cert'),
    key: await readUserFile(paths.keyPath, '--tls-key'),
  };
}

/** The seed file at `path`, read and checked; `label` names it in messages (`--seed`). */
export async function readSeed(path: string, label: string): Promise<Seed> {
  const text = await readUserText(path, label);
  try {
    return parseSeed(text);
  } catch (err) {
    if (err instanceof ExectlError) {
      throw new ExectlError(err.code, `${label} ${path}: ${err.message}`, { hint: err.hint });
    }
    throw err;
  }
}

/** Whether `name` is an executable file in one of the folders of `path` (as a shell finds it). */
async function isOnPath(name: string, path: string | undefined): Promise<boolean> {
  for (const dir of (path ?? '').split(':')) {
    if (dir === '') continue;
    try {
      await access(join(dir, name), constants.X_OK);
      return true;
    } catch {
      // Not here; the next folder.
    }
  }
  return false;
}
