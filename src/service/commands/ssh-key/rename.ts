import { json, type ServiceCommand } from '../shared/command.js';
import { findOwnKey } from './keys.js';
import { checkKeyName } from '../../rules/validate.js';

interface SshKeyRenameData {
  old_name: string;
  new_name: string;
  fingerprint: string;
}

/** `ssh-key rename <old> <new>` — `<old>` is the key's name or fingerprint. */
export const sshKeyRenameCommand: ServiceCommand = {
  path: 'ssh-key rename',
  description: 'Rename one of your SSH keys (name it by its name or fingerprint)',
  usage: 'ssh-key rename <old> <new>',
  flags: [],
  args: [
    { name: 'old', required: true },
    { name: 'new', required: true },
  ],
  examples: ['ssh-key rename key-2 laptop'],
  mutates: true,
  async run(ctx, input) {
    const [oldRef = '', newName = ''] = input.args;
    const key = findOwnKey(ctx, [oldRef]);
    const renamed = ctx.deps.store.renameKey(key.fingerprint, checkKeyName(newName));
    const data: SshKeyRenameData = {
      old_name: key.name,
      new_name: renamed.name,
      fingerprint: key.fingerprint,
    };
    return json(data);
  },
};
