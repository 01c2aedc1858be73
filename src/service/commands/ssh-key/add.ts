import { commandFailed } from '../../../errors.js';
import type { ReadInput } from '../../dispatch/types.js';
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
 * `ssh-key add [--name N] [<public-key>]` — registers a public key on the caller's account; it
 * can then sign tokens and open SSH sessions. The key is one `.pub` line, quoted or pasted as
 * is (the words are joined by single spaces), or, without the argument, read from standard
 * input (over SSH: `cat k.pub | ssh host ssh-key add`, the real service's documented way). Default name: the key's comment when it is a
 * valid, unused name, else the first free `key-N`. A key belongs to one account only. A key
 * added by a tag-scoped key gets its tag, so the scope cannot be escaped by adding a key.
 */
export const sshKeyAddCommand: ServiceCommand = {
  path: 'ssh-key add',
  description:
    "Register an SSH public key on your account (default name: the key's comment, else key-N; over SSH without the key: read from stdin)",
  usage: 'ssh-key add [--name N] [<public-key>]',
  flags: [
    {
      name: 'name',
      type: 'string',
      description: "Name of the key (default: the key's comment, else key-N)",
    },
  ],
  args: [{ name: 'public-key', required: false, variadic: true }],
  examples: [
    'ssh-key add --name laptop ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI... me@laptop',
    "ssh-key add 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI... me@laptop'",
  ],
  mutates: true,
  async run(ctx, input) {
    const words = input.args.length > 0 ? input.args : [await keyFromInput(ctx.readInput)];
    const key = parseUserPublicKey(words);
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

/** Longer than any key `ssh-key add` takes (an 8192-bit RSA line is about 1.4 KB). */
const MAX_KEY_INPUT_BYTES = 16_384;

/**
 * The one key line piped into the command.
 * @throws 422 without an input to read (/exec has no stdin), past the size bound, or for more
 *   than one key.
 */
async function keyFromInput(readInput: ReadInput | undefined): Promise<string> {
  if (readInput === undefined) {
    throw commandFailed('missing argument <public-key>', {
      hint: 'give the key as the argument, or pipe it in over SSH: "cat k.pub | ssh <host> ssh-key add"',
    });
  }
  const bytes = await readInput(MAX_KEY_INPUT_BYTES);
  if (bytes === null) throw commandFailed(`the key on stdin exceeds ${MAX_KEY_INPUT_BYTES} bytes`);
  const lines = bytes
    .toString('utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (lines.length === 0) throw commandFailed('missing argument <public-key>: stdin was empty');
  if (lines.length > 1) {
    throw commandFailed(`stdin holds ${lines.length} lines: give one public key`);
  }
  return lines[0]!;
}
