import { json, type ServiceCommand } from './shared/command.js';
import { makeMachineInBackground } from '../operations/make-machine.js';
import { storeNewVm, type NewVmFields } from './shared/new-record.js';
import { checkComment, checkTag, checkVmName, parseEnv } from '../rules/validate.js';
import { vmSummary } from './vm-view.js';
import { findIntegration } from './integrations/view.js';
import { refuseIfTagScoped } from './shared/vm-access.js';
import type { Principal } from '../dispatch/types.js';
import { EXE_DEFAULTS_DOMAIN, SETUP_SCRIPT_KEY } from '../rules/defaults.js';
import { IMAGE_FLAGS, imageFlags } from './new-image.js';
import { commandFailed } from '../../errors.js';
import { DEFAULT_VM_LIMITS } from '../store/index.js';
import { limitFlags, limitsFromFlags } from './machine/limit-flags.js';
import { quote } from '../rules/validate.js';

/**
 * `new [<name>] [--name N] [--tag T]... [--comment C] [--integration I]... [--env K=V]...
 * [--setup-script S] [--cpu N] [--memory SIZE] [--disk SIZE] [--no-email]` — creates a VM owned
 * by the caller, with the flags the real service's clients send (`--tag=a,b`, `--memory=4GB`). Every input is checked first; then
 * the record is stored (status `creating`, so the name is taken at once), then the machine is
 * made (if that fails, it is removed and the record deleted) and the setup script starts
 * inside, in the background. The answer comes when the script ended (`running`; a failed
 * script is a 422 and leaves the VM `failed`) or after 25 s (`creating`, the script goes on for
 * at most 15 minutes). Without `--name` the VM gets a random free `adjective-noun` name.
 */
export const newCommand: ServiceCommand = {
  path: 'new',
  description: 'Create a VM (without --name: a random adjective-noun name)',
  usage:
    'new [<name>] [--name N] [--tag T]... [--env K=V]... [--setup-script S] [--cpu N] [--memory SIZE] [--disk SIZE] [--image REF [--command auto|none|CMD]] [flags]',
  flags: [
    { name: 'name', type: 'string', description: 'Name of the VM, a DNS label (default: random)' },
    {
      name: 'tag',
      type: 'string[]',
      commaList: true,
      description: 'A tag, repeatable or comma-separated',
    },
    { name: 'comment', type: 'string', description: 'A comment, at most 200 bytes' },
    {
      name: 'integration',
      type: 'string[]',
      commaList: true,
      description: 'Attach one of your integrations to this VM, repeatable or comma-separated',
    },
    {
      name: 'env',
      type: 'string[]',
      description: 'KEY=VALUE set for commands in the VM, repeatable',
    },
    {
      name: 'setup-script',
      type: 'string',
      description:
        'Shell script run once inside the VM as root when it is created; new answers when it ends or after 25 s (status creating), it runs at most 15 minutes, output in /var/log/exectl-setup.log',
    },
    ...IMAGE_FLAGS,
    ...limitFlags({
      cpu: 'CPUs the VM may use, e.g. 1 or 0.5 (default 2)',
      memory: 'Memory limit, e.g. 512M, 4G or 4GB (a bare number is GB; default 2G)',
      disk: 'Disk size, e.g. 20G or 20GB (a bare number is GB; default 10G)',
    }),
    { name: 'no-email', type: 'boolean', description: 'Accepted: this server mails nothing' },
    {
      name: 'prompt',
      type: 'string',
      description: 'Refused: no coding agent runs in this emulator’s VMs',
    },
  ],
  args: [{ name: 'name', required: false }],
  examples: [
    'new',
    'new web',
    'new --name web --tag prod --comment "the site"',
    'new --name=ci --tag=ci,linux --cpu=1 --memory=4GB --disk=20GB',
    "new --name api --env PORT=8000 --setup-script 'mkdir -p ~/app'",
  ],
  mutates: true,
  async run(ctx, input) {
    const { flags } = input;
    if (flags.string('prompt') !== undefined) {
      throw commandFailed('--prompt is not taken: no coding agent runs in this emulator', {
        hint: 'create the VM without it, then run your agent yourself with "ssh <vm> ..."',
      });
    }
    const given = nameOf(flags.string('name'), input.args[0]);
    if (given !== undefined) checkVmName(given);
    const { image, credentials } = imageFlags(flags);
    const limited = ['cpu', 'memory', 'disk'].some((f) => flags.string(f) !== undefined);
    const fields: NewVmFields = {
      accountId: ctx.principal.accountId,
      status: 'creating',
      tags: scopedTags(ctx.principal, flags.strings('tag').map(checkTag)),
      comment: checkComment(flags.string('comment') ?? ''),
      env: parseEnv(flags.strings('env')),
      // Without --setup-script, the account's default (`defaults write dev.exe new.setup-script`).
      setupScript:
        flags.string('setup-script') ??
        ctx.deps.store.getDefault(ctx.principal.accountId, EXE_DEFAULTS_DOMAIN, SETUP_SCRIPT_KEY)
          ?.value ??
        null,
      // A tag-scoped key names only the integrations it sees (the others are "not found").
      integrations: [...new Set(flags.strings('integration'))].map(
        (name) => findIntegration(ctx, name).name,
      ),
      image,
      ...(limited ? { limits: limitsFromFlags(flags, DEFAULT_VM_LIMITS) } : {}),
    };
    const vm = storeNewVm(ctx, given, fields);
    return json(
      vmSummary(
        ctx.deps,
        await makeMachineInBackground(
          ctx.deps,
          vm,
          ctx.signal,
          (line, level) => ctx.deps.config.log(`req=${ctx.requestId} new: ${line}`, level),
          credentials,
        ),
      ),
    );
  },
};

/**
 * The name from `--name` or the argument (`new web`, as the real service takes it).
 * @throws 422 when both are given and differ.
 */
function nameOf(flag: string | undefined, arg: string | undefined): string | undefined {
  if (flag !== undefined && arg !== undefined && flag !== arg) {
    throw commandFailed(`two names given, ${quote(arg)} and --name ${quote(flag)}: give one`);
  }
  return flag ?? arg;
}

/**
 * `--tag`s as given, when the caller may give them: a tag-scoped key may name only its own tag
 * (the VM gets it anyway), since another tag would bring the VM the integrations attached to it.
 *
 * @throws 403 `this key is limited to vms tagged "ci" and cannot give its vms other tags: ...`.
 */
function scopedTags(principal: Principal, tags: string[]): string[] {
  if (tags.some((tag) => tag !== principal.tag)) {
    refuseIfTagScoped(principal, 'give its vms other tags');
  }
  return tags;
}
