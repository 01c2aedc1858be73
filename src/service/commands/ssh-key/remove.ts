import { commandFailed } from '../../../errors.js';
import { json, type ServiceCommand } from '../shared/command.js';
import { findOwnKey } from './keys.js';

interface SshKeyRemoveData {
  name: string;
  fingerprint: string;
  status: 'removed';
}

/**
 * `ssh-key remove <name|fingerprint|public-key>` — unregisters one of the caller's keys. Every
 * token it signed stops working at once, svc1 handles included — also the token of this very
 * request when it names its own key (allowed: it is how a leaked key is revoked). The last key
 * of an account cannot be removed: nothing could sign for the account afterwards.
 */
export const sshKeyRemoveCommand: ServiceCommand = {
  path: 'ssh-key remove',
  description:
    'Remove one of your SSH keys by name, fingerprint or public key; its tokens stop working',
  usage: 'ssh-key remove <name|fingerprint|public-key>',
  flags: [],
  args: [{ name: 'key', required: true, variadic: true }],
  examples: [
    'ssh-key remove laptop',
    'ssh-key remove SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s',
  ],
  mutates: true,
  async run(ctx, input) {
    const key = findOwnKey(ctx, input.args);
    const { store } = ctx.deps;
    if (store.listKeys(ctx.principal.accountId).length === 1) {
      throw commandFailed(
        'cannot remove the last ssh key of your account: add another first (ssh-key add, or `exectl serve accounts add <email> --key FILE` on the server)',
      );
    }
    store.removeKey(key.fingerprint);
    const data: SshKeyRemoveData = {
      name: key.name,
      fingerprint: key.fingerprint,
      status: 'removed',
    };
    return json(data);
  },
};
