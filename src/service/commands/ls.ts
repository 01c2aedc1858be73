import { json, type ServiceCommand } from './shared/command.js';
import type { VmListing } from '../../text-views/vms.js';
import { vmListing } from './vm-view.js';
import { isInTagScope } from '../rules/tag-scope.js';

interface LsData {
  vms: VmListing[];
}

/**
 * `ls [-l] [pattern]` — the caller's VMs and the VMs shared with it, by name; with a
 * tag-scoped key, only those carrying its tag.
 */
export const lsCommand: ServiceCommand = {
  path: 'ls',
  description:
    'List your VMs and those shared with you (pattern: a glob over names and tags; -l: more text columns)',
  usage: 'ls [-l] [pattern]',
  flags: [
    {
      name: 'long',
      short: 'l',
      type: 'boolean',
      description:
        'Also the limits (cpus, memory_bytes, disk_bytes); text form: comment, port, ssh command, region and creation time',
    },
  ],
  args: [{ name: 'pattern', required: false }],
  examples: ['ls', 'ls -l', "ls 'web-*'", 'ls prod'],
  mutates: false,
  async run(ctx, input) {
    const { deps, principal } = ctx;
    const vms = deps.store
      .listVmsVisibleTo(principal.accountId, input.args[0])
      .filter((vm) => isInTagScope(principal, vm));
    const long = input.flags.boolean('long');
    const data: LsData = { vms: vms.map((vm) => vmListing(deps, vm, long)) };
    return json(data);
  },
};
