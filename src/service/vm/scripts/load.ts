// The host's scripts of vm/ (the *.sh, *.pl and *.cjs beside this file), read at first use. They lie
// beside this module in all three ways the code runs: in src/ under tsx (tests), in dist/ built
// by tsc (scripts/copy-vm-scripts.mjs copies them there), and in the CLI bundle, whose chunks
// are this module's place once bundled (scripts/bundle-cli.mjs copies them beside the chunks).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The scripts, by file name. Each file's header names its arguments. */
export type ScriptName =
  | 'base-top-level.sh'
  | 'fill-image.sh'
  | 'hold-freeze.sh'
  | 'image-extents.pl'
  | 'image-tidy.sh'
  | 'in-vm-command.sh'
  | 'in-vm-session.sh'
  | 'join-machine.sh'
  | 'launch-machine.sh'
  | 'login-shell.sh'
  | 'machine-root.pl'
  | 'maildir-deliver.sh'
  | 'network-wall.nft'
  | 'netns-door.cjs'
  | 'netns-listen.pl'
  | 'private-tun.sh'
  | 'setup-wrapper.sh'
  | 'shift-image-owners.sh'
  | 'shift-owners.pl'
  | 'sftp-server.sh'
  | 'snapshot-base.sh'
  | 'vm-service.sh';

const texts = new Map<ScriptName, string>();

/** The text of the script `name`, for `sh -c`, `perl -e` or `node -e` (read once, then kept). */
export function scriptText(name: ScriptName): string {
  let text = texts.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(name, import.meta.url), 'utf8');
    texts.set(name, text);
  }
  return text;
}

/** Where the script `name` lies, for a tool that reads a file itself (`nft -f`). */
export function scriptPath(name: ScriptName): string {
  return fileURLToPath(new URL(name, import.meta.url));
}
