import { commandFailed } from '../../../errors.js';
import { quote } from '../../rules/validate.js';
import { json, type ServiceCommand } from '../shared/command.js';
import { findOwnVm } from '../shared/vm-access.js';

interface TeamAccessData {
  vm_name: string;
  team_access: 'allowed' | 'disallowed';
}

/**
 * `share access allow|disallow <vm>` — whether the members of the owner's team may ssh into the
 * VM (every ssh door: `ssh` over /exec and the lobby, `vm+<vm>` sessions). Owner only; off
 * until allowed. Its site is shared as before (`share add`): this opens SSH only.
 */
export const shareAccessCommand: ServiceCommand = {
  path: 'share access',
  description: 'Let the members of your team ssh into one of your VMs, or stop them (owner only)',
  usage: 'share access allow|disallow <vm>',
  flags: [],
  args: [
    { name: 'allow|disallow', required: true },
    { name: 'vm', required: true },
  ],
  examples: ['share access allow web', 'share access disallow web'],
  mutates: true,
  async run(ctx, input) {
    const [action = '', name = ''] = input.args;
    if (action !== 'allow' && action !== 'disallow') {
      throw commandFailed(`unknown access ${quote(action)}: use allow or disallow`, {
        hint: 'run "share access --help" for usage',
      });
    }
    const vm = findOwnVm(ctx, name, 'change its sharing');
    ctx.deps.store.setTeamAccess(vm.id, action === 'allow');
    const data: TeamAccessData = {
      vm_name: vm.name,
      team_access: action === 'allow' ? 'allowed' : 'disallowed',
    };
    return json(data);
  },
};
