import { json, type ServiceCommand } from './shared/command.js';
import { checkTag } from '../rules/validate.js';
import { findOwnVm } from './shared/vm-access.js';

interface TagData {
  vm_name: string;
  tags: string[];
}

/**
 * `tag [-d] <vm> <tag>...` — owner only. Adds the tags (ones already set are kept once), or
 * with `-d` removes them (ones not set are ignored). Answers the VM's tags afterwards, sorted.
 * A tag-scoped key may not (the dispatcher refuses it): tags are what its scope is made of.
 */
export const tagCommand: ServiceCommand = {
  path: 'tag',
  description: 'Add tags to one of your VMs, or remove them with -d (owner only)',
  usage: 'tag [-d] <vm> <tag>...',
  flags: [{ name: 'delete', short: 'd', type: 'boolean', description: 'Remove the tags instead' }],
  args: [
    { name: 'vm', required: true },
    { name: 'tag', required: true, variadic: true },
  ],
  examples: ['tag web prod eu', 'tag -d web eu'],
  mutates: true,
  async run(ctx, input) {
    const [name = '', ...tags] = input.args;
    const vm = findOwnVm(ctx, name, 'change its tags');
    const store = ctx.deps.store;
    const updated = input.flags.boolean('delete')
      ? store.removeTags(vm.id, tags)
      : store.addTags(vm.id, tags.map(checkTag));
    const data: TagData = { vm_name: updated.name, tags: updated.tags };
    return json(data);
  },
};
