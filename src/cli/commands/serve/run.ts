// `exectl serve` from flags to a running server and back (SPEC §7): check every input, prepare
// the data folder, start the service, apply the seed, bootstrap the owner, show the banner,
// then wait for SIGINT/SIGTERM and stop cleanly.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { ExectlError } from '../../../errors.js';
import {
  DEFAULTS,
  type ServiceConfig,
  startService,
  type RunningService,
  parseSeed,
  type Seed,
} from '../../../service/index.js';
import type { CommandOutcome } from '../../command.js';
import type { CliContext } from '../../context.js';
import { PLAIN_STYLE, styleFor, warn } from '../../output.js';
import { renderBanner, type BannerFacts } from './banner.js';
import { LOG_LEVELS } from './choices.js';
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
    // A stop during a seed VM's setup script ends it rather than waiting for it.
    const abort = new AbortController();
    void stop.requested.then(() => abort.abort(new Error('server stopping')));
    let started: { service: RunningService; owner: BannerFacts['owner'] } | undefined;
    try {
      // Healthy once the seed is applied and the owner is there, not as soon as it listens.
      started = await startService({
        config: serviceConfig(ctx, settings, data.path, tls),
        seed:
          seed === undefined
            ? undefined
            : {
                document: seed,
                log: (line) => ctx.stderr.write(`exectl: seed: ${line}\n`),
                signal: abort.signal,
                applied: (changes) => reportSeed(ctx, settings.seedPath, changes),
              },
        owner: (store) => bootstrapOwnerAccount(ctx, store, settings, authorizedKeys),
      });
    } catch (err) {
      // Stopped while starting (a seed VM's setup script is cut short): a plain stop.
      if (stop.received === undefined) throw err;
    }
    try {
      if (started !== undefined) await showBanner(ctx, started, settings, data);
      const signal = await stop.requested;
      ctx.stderr.write(
        `exectl: ${signal}: stopping — finishing running commands (again to force)\n`,
      );
    } finally {
      await started?.service.close();
    }
    ctx.stderr.write('exectl: stopped\n');
  } finally {
    stop.dispose();
    data.discard();
  }
  return undefined;
}

function reportSeed(ctx: CliContext, path: string | undefined, changes: string[]): void {
  const summary = changes.length === 0 ? 'nothing to change' : `${changes.length} change(s)`;
  ctx.stderr.write(`exectl: seed ${path}: ${summary}\n`);
  for (const change of changes) ctx.stderr.write(`  ${change}\n`);
}

async function showBanner(
  ctx: CliContext,
  { service, owner }: { service: RunningService; owner: BannerFacts['owner'] },
  settings: ServeSettings,
  data: { path: string; ephemeral: boolean },
): Promise<void> {
  const style = ctx.color && ctx.stderr.isTTY === true ? await styleFor(ctx) : PLAIN_STYLE;
  ctx.stderr.write(
    renderBanner(
      {
        http: service.endpoints.http,
        ssh: service.endpoints.ssh,
        sshHostKey: service.sshHostKeyFingerprint,
        vmSshAddresses: service.vmSshAddresses,
        reflection: service.endpoints.reflection,
        smtp: service.endpoints.smtp ?? null,
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
    smtpListen: settings.smtpListen,
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
    maxVmsPerAccount: settings.maxVmsPerAccount,
    registries: settings.registries,
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
