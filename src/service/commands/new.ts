import { commandFailed } from '../../errors.js';
import { StoreConflictError, type NewVm, type VmRecord } from '../store/index.js';
import { json, type ServiceCommand, type ServiceContext } from './shared/command.js';
import { emojiFor } from './shared/emoji.js';
import { makeMachineOrDiscard } from './shared/make-machine.js';
import { randomVmName } from './shared/random-name.js';
import { listCell, textRecord, optionalCell } from './shared/text-table.js';
import { checkComment, checkTag, checkVmName, parseEnv } from './shared/validate.js';
import { vmSummary, type VmSummary } from './shared/vm-view.js';

/** Random names tried before giving up (1600 combinations: collisions stay rare). */
const RANDOM_NAME_TRIES = 20;

type NewVmFields = Omit<NewVm, 'name' | 'emoji'>;

/**
 * `new [--name N] [--tag T]... [--comment C] [--integration I]... [--env K=V]...
 * [--setup-script S]` — creates a VM owned by the caller. Every input is checked first; then
 * the record is stored (status `creating`, so the name is taken at once), then the machine is
 * made and the setup script runs once inside. If that fails or the deadline passes, the
 * machine is removed and the record deleted, and the failure is answered. On success the
 * status is `running`. Without `--name` the VM gets a random free `adjective-noun` name.
 */
export const newCommand: ServiceCommand = {
  path: 'new',
  description: 'Create a VM (without --name: a random adjective-noun name)',
  usage:
    'new [--name N] [--tag T]... [--comment C] [--integration I]... [--env K=V]... [--setup-script S]',
  flags: [
    { name: 'name', type: 'string', description: 'Name of the VM, a DNS label (default: random)' },
    { name: 'tag', type: 'string[]', description: 'A tag, repeatable' },
    { name: 'comment', type: 'string', description: 'A comment, at most 200 bytes' },
    {
      name: 'integration',
      type: 'string[]',
      description: 'Attach one of your integrations to this VM, repeatable',
    },
    {
      name: 'env',
      type: 'string[]',
      description: 'KEY=VALUE set for commands in the VM, repeatable',
    },
    {
      name: 'setup-script',
      type: 'string',
      description: 'Shell script run once inside the VM when it is created',
    },
  ],
  args: [],
  examples: [
    'new',
    'new --name web --tag prod --comment "the site"',
    "new --name api --env PORT=8000 --setup-script 'mkdir -p ~/app'",
  ],
  mutates: true,
  async run(ctx, input) {
    const { flags } = input;
    const given = flags.string('name');
    if (given !== undefined) checkVmName(given);
    const fields: NewVmFields = {
      accountId: ctx.principal.accountId,
      status: 'creating',
      tags: flags.strings('tag').map(checkTag),
      comment: checkComment(flags.string('comment') ?? ''),
      env: parseEnv(flags.strings('env')),
      setupScript: flags.string('setup-script') ?? null,
      integrations: [...new Set(flags.strings('integration'))],
    };
    const vm = given === undefined ? createWithRandomName(ctx, fields) : create(ctx, given, fields);
    return json(
      vmSummary(
        ctx.deps,
        await makeMachineOrDiscard(ctx.deps, vm, ctx.signal, (line, level) =>
          ctx.deps.config.log(`req=${ctx.requestId} new: ${line}`, level),
        ),
      ),
    );
  },
  renderText(data: VmSummary) {
    return textRecord([
      ['vm', `${data.emoji} ${data.vm_name}`],
      ['status', data.status],
      ['tags', listCell(data.tags)],
      ['port', String(data.default_port)],
      ['url', data.https_url],
      ['ssh', optionalCell(data.ssh_dest)],
    ]);
  },
};

function create(ctx: ServiceContext, name: string, fields: NewVmFields): VmRecord {
  return ctx.deps.store.createVm({ ...fields, name, emoji: emojiFor(name) });
}

/** Random names until one is free; the store's uniqueness check settles races. */
function createWithRandomName(ctx: ServiceContext, fields: NewVmFields): VmRecord {
  for (let attempt = 0; attempt < RANDOM_NAME_TRIES; attempt += 1) {
    const name = randomVmName();
    if (ctx.deps.store.getVmByName(name) !== undefined) continue;
    try {
      return create(ctx, name, fields);
    } catch (error) {
      if (!(error instanceof StoreConflictError && error.kind === 'duplicate')) throw error;
    }
  }
  throw commandFailed('no free random vm name found: choose one with --name');
}
