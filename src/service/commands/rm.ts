import { ExectlError } from '../../errors.js';
import { json, type ServiceCommand } from './shared/command.js';
import { findOwnVm } from './shared/vm-access.js';

interface RmData {
  deleted: string[];
  failed: { vm_name: string; error: string }[];
}

/**
 * `rm <vm>...` — deletes the caller's VMs: their processes, disks and records. Each VM is
 * handled on its own; when any fails (not found, not the owner, ...), the answer is 422 whose
 * message is the first error and whose body is the same JSON as success, so the client still
 * learns what was deleted. Owner only: a shared VM is refused.
 */
export const rmCommand: ServiceCommand = {
  path: 'rm',
  description: 'Delete VMs with their disks (owner only); reports each one that failed',
  usage: 'rm <vm>...',
  flags: [],
  args: [{ name: 'vm', required: true, variadic: true }],
  examples: ['rm brave-otter', 'rm web api'],
  mutates: true,
  async run(ctx, input) {
    const data: RmData = { deleted: [], failed: [] };
    for (const name of input.args) {
      try {
        const vm = findOwnVm(ctx, name, 'delete it');
        // The machine first: if its removal fails, the record stays and `rm` can be retried.
        await ctx.deps.machines.remove(vm);
        // A `cp` making this VM, its copy aborted by this removal, may have deleted it already.
        if (ctx.deps.store.getVm(vm.id) !== undefined) ctx.deps.store.deleteVm(vm.id);
        data.deleted.push(vm.name);
      } catch (error) {
        if (!(error instanceof ExectlError)) throw error;
        data.failed.push({ vm_name: name, error: error.message });
      }
    }
    const first = data.failed[0];
    if (first !== undefined) throw new ExectlError('command_failed', first.error, { body: data });
    return json(data);
  },
};
