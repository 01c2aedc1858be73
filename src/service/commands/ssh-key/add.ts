import { json, type ServiceCommand } from '../shared/command.js';
import { defaultNameForKey, parseUserPublicKey } from './keys.js';
import { checkKeyName } from '../../rules/validate.js';

interface SshKeyAddData {
  name: string;
  fingerprint: string;
  public_key: string;
  status: 'added';
}

/**
 * `ssh-key add [--name N] <public-key>` — registers a public key on the caller's account; it
 * can then sign tokens and open SSH sessions. The key is one `.pub` line, quoted or pasted as
 * is (the words are joined by single spaces). Default name: the key's comment when it is a
 * valid, unused name, else the first free `key-N`. A key belongs to one account only. A key
 * added by a tag-scoped key gets its tag, so the scope cannot be escaped by adding a key.
 */
export const sshKeyAddCommand: ServiceCommand = {
  path: 'ssh-key add',
  description:
    "Register an SSH public key on your account (default name: the key's comment, else key-N)",
  usage: 'ssh-key add [--name N] <public-key>',
  flags: [
    {
      name: 'name',
      type: 'string',
      description: "Name of the key (default: the key's comment, else key-N)",
    },
  ],
  args: [{ name: 'public-key', required: true, variadic: true }],
  examples: [
    'ssh-key add --name laptop ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI... me@laptop',
    "ssh-key add 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI... me@laptop'",
  ],
  mutates: true,
  async run(ctx, input) {
    const key = parseUserPublicKey(input.args);
    const given = input.flags.string('name');
    const name = given === undefined ? defaultNameForKey(ctx, key.comment) : checkKeyName(given);
    const added = ctx.deps.store.addKey({
      accountId: ctx.principal.accountId,
      fingerprint: key.fingerprint,
      name,
      publicKey: key.toOpenSsh(),
      keyType: key.type,
      tag: ctx.principal.tag,
    });
    const data: SshKeyAddData = {
      name: added.name,
      fingerprint: added.fingerprint,
      public_key: added.publicKey,
      status: 'added',
    };
    return json(data);
  },
};
