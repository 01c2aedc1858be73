import { json, type ServiceCommand } from './shared/command.js';
import { listCell, optionalCell, textTable } from '../../text-table.js';
import { vmListing, type VmListing } from './vm-view.js';
import { isInTagScope } from '../rules/tag-scope.js';

interface LsData {
  vms: VmListing[];
}

/**
 * Answers of `ls -l`. The JSON is the same with or without `-l`; only the text form differs,
 * and `renderText` sees just the data, so the answer object itself is remembered here (a
 * WeakSet leaves the JSON untouched and forgets the answer once it is rendered and dropped).
 */
const longListings = new WeakSet<LsData>();

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
      description: 'Text form: also show comment, default port, ssh command and creation time',
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
    const data: LsData = { vms: vms.map((vm) => vmListing(deps, vm)) };
    if (input.flags.boolean('long')) longListings.add(data);
    return json(data);
  },
  renderText(data: LsData) {
    const long = longListings.has(data);
    const headers = ['name', 'status', 'tags', 'url'];
    if (long) headers.push('comment', 'port', 'ssh', 'created');
    const rows = data.vms.map((vm) => {
      const row = [`${vm.emoji} ${vm.vm_name}`, vm.status, listCell(vm.tags), vm.https_url];
      if (long) {
        row.push(
          optionalCell(vm.comment),
          String(vm.default_port),
          optionalCell(vm.ssh_dest),
          vm.created_at,
        );
      }
      return row;
    });
    return textTable(headers, rows, 'no vms');
  },
};
