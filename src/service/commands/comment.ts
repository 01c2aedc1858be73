import { json, type ServiceCommand } from './shared/command.js';
import { checkComment, MAX_COMMENT_BYTES } from '../rules/validate.js';
import { findOwnVm } from './shared/vm-access.js';

interface CommentData {
  vm_name: string;
  comment: string;
}

/**
 * `comment <vm> <text>` — owner only. Unquoted words after the VM are joined by single spaces
 * (`comment web my api` sets `my api`); `""` clears the comment.
 */
export const commentCommand: ServiceCommand = {
  path: 'comment',
  description: `Set the comment of one of your VMs (owner only; at most ${MAX_COMMENT_BYTES} bytes; "" clears it)`,
  usage: 'comment <vm> <text>',
  flags: [],
  args: [
    { name: 'vm', required: true },
    { name: 'text', required: true, variadic: true },
  ],
  examples: ['comment web "staging API, do not delete"', 'comment web ""'],
  mutates: true,
  async run(ctx, input) {
    const [name = '', ...words] = input.args;
    const vm = findOwnVm(ctx, name, 'change its comment');
    const updated = ctx.deps.store.setComment(vm.id, checkComment(words.join(' ')));
    const data: CommentData = { vm_name: updated.name, comment: updated.comment };
    return json(data);
  },
};
