import { json, type ServiceCommand } from '../shared/command.js';
import { shareEntry, type ShareEntry } from './view.js';
import { findOwnVm } from '../shared/vm-access.js';
import { isInTagScope } from '../../rules/tag-scope.js';

interface ShareShowData {
  shares: ShareEntry[];
}

/**
 * `share show [<vm>]` — the sharing of every VM the caller owns, or of one of them. Sharing is
 * the owner's business: a VM shared with the caller is refused (its other users stay private).
 */
export const shareShowCommand: ServiceCommand = {
  path: 'share show',
  description: 'Show how your VMs are shared: visibility, port, address and users (owner only)',
  usage: 'share show [<vm>]',
  flags: [],
  args: [{ name: 'vm', required: false }],
  examples: ['share show', 'share show web'],
  mutates: false,
  async run(ctx, input) {
    const { deps, principal } = ctx;
    const name = input.args[0];
    const vms =
      name === undefined
        ? deps.store.listVmsOwnedBy(principal.accountId).filter((vm) => isInTagScope(principal, vm))
        : [findOwnVm(ctx, name, 'see its sharing')];
    const data: ShareShowData = { shares: vms.map((vm) => shareEntry(deps, vm)) };
    return json(data);
  },
};
