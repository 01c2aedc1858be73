import { ExectlError } from '../../errors.js';

/** The one command whose cmds entry may name its first argument: `ssh <vm>` (SPEC §1.3). */
const VM_SCOPED_COMMAND = 'ssh';

/**
 * Whether a token's `cmds` let its holder run the command at `path` (SPEC §1.3):
 * - `null` (an SSH session, not limited by a token) allows everything; `[]` allows nothing;
 * - an entry is a whole command path compared exactly: `ssh-key` grants neither
 *   `ssh-key list` nor anything else under it, and flags or arguments never matter;
 * - `ssh` allows ssh into any VM; `ssh <vm>` allows it only when the first argument of the
 *   `ssh` command is that VM.
 *
 * `args` are the command's positional arguments (flags removed), as the command will see them.
 * `names` are every name of the command (its path and its aliases, SPEC §12): listing any one
 * of them allows it.
 *
 * @example isAllowed(['ssh web'], 'ssh', ['web', 'ls']) // true
 * @example isAllowed(['ssh-key'], 'ssh-key list', []) // false
 */
export function isAllowed(
  cmds: readonly string[] | null,
  path: string,
  args: readonly string[],
  names: readonly string[] = [path],
): boolean {
  if (cmds === null) return true;
  if (cmds.includes(path) || names.some((name) => cmds.includes(name))) return true;
  const vm = args[0];
  return path === VM_SCOPED_COMMAND && vm !== undefined && cmds.includes(`${path} ${vm}`);
}

/**
 * {@link isAllowed}, or throws.
 * @throws ExectlError `forbidden` `command not allowed: <path>`.
 */
export function authorize(
  cmds: readonly string[] | null,
  path: string,
  args: readonly string[],
  names?: readonly string[],
): void {
  if (isAllowed(cmds, path, args, names)) return;
  throw new ExectlError('forbidden', `command not allowed: ${path}`, {
    hint: `use a token whose cmds include "${path}" (exectl mint --cmds "${path}")`,
  });
}
