import { commandFailed } from '../../../errors.js';
import { json, type ServiceCommand } from '../shared/command.js';
import { shareUsers, type ShareUser } from './view.js';
import { checkEmail, quote, sameEmail } from '../../rules/validate.js';
import { findOwnVm } from '../shared/vm-access.js';

interface ShareUsersData {
  vm_name: string;
  users: ShareUser[];
}

/**
 * `share add <vm> <email>` and `share remove <vm> <email>`, which differ only in the store
 * change they make. Owner only; the email need not have an account yet (it sees the VM once it
 * has one). Answers the VM's users afterwards.
 */
function shareUsersCommand(
  action: 'add' | 'remove',
  description: string,
  example: string,
): ServiceCommand {
  return {
    path: `share ${action}`,
    description,
    usage: `share ${action} <vm> <email>`,
    flags: [],
    args: [
      { name: 'vm', required: true },
      { name: 'email', required: true },
    ],
    examples: [example],
    mutates: true,
    async run(ctx, input) {
      const [name = '', email = ''] = input.args;
      const { store } = ctx.deps;
      const vm = findOwnVm(ctx, name, 'change its sharing');
      checkEmail(email);
      if (action === 'add') {
        if (sameEmail(email, ctx.principal.email)) {
          throw commandFailed(`vm ${quote(vm.name)} is yours: share it with someone else`);
        }
        store.addShare(vm.id, email);
      } else {
        store.removeShare(vm.id, email);
      }
      const data: ShareUsersData = { vm_name: vm.name, users: shareUsers(ctx.deps, vm) };
      return json(data);
    },
  };
}

/** `share add <vm> <email>` — let another user see and use one of your VMs (owner only). */
export const shareAddCommand = shareUsersCommand(
  'add',
  'Share one of your VMs with another user by email (owner only)',
  'share add web ada@example.com',
);

/** `share remove <vm> <email>` — stop sharing one of your VMs with a user (owner only). */
export const shareRemoveCommand = shareUsersCommand(
  'remove',
  'Stop sharing one of your VMs with a user (owner only)',
  'share remove web ada@example.com',
);
