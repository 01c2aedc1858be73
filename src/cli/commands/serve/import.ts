// `exectl serve import FILE` (SPEC §7): a `--seed` file (or an export) applied to a data folder
// offline — the same changes a start with `--seed FILE` makes, VMs created as `new` creates
// them. The service runs for the import alone, on loopback ports the OS picks and without SSH,
// and holds the folder's lock meanwhile (refused while a server runs on the folder).
import { startService } from '../../../service/index.js';
import type { CliContext } from '../../context.js';
import { keptDataFolder, prepareDataFolder } from './data.js';
import { resolveServeSettings, type ServeFlags } from './options.js';
import { readSeed, serviceConfig } from './run.js';

const ANY_LOOPBACK_PORT = { host: '127.0.0.1', port: 0 };

/** Applies the seed at `file`; lists each change on standard output. */
export async function runImport(ctx: CliContext, flags: ServeFlags, file: string): Promise<void> {
  const settings = resolveServeSettings(flags, ctx.env);
  const seed = await readSeed(file, 'import');
  const data = await prepareDataFolder(keptDataFolder(settings.data, 'import works'));
  const quiet = {
    ...settings,
    listen: ANY_LOOPBACK_PORT,
    reflectionListen: ANY_LOOPBACK_PORT,
    sshListen: null,
    smtpListen: null,
    logLevel: 'warn' as const,
  };
  let changes: string[] = [];
  const { service } = await startService({
    config: serviceConfig(ctx, quiet, data.path, null),
    seed: {
      document: seed,
      log: (line) => ctx.stderr.write(`exectl: import: ${line}\n`),
      applied: (applied) => (changes = applied),
    },
    // An import only adds what the seed names: no owner of its own.
    owner: () => undefined,
  });
  await service.close();
  const summary = changes.length === 0 ? 'nothing to change' : `${changes.length} change(s)`;
  ctx.stdout.write(`imported ${file} into ${data.path}: ${summary}\n`);
  for (const change of changes) ctx.stdout.write(`  ${change}\n`);
}
