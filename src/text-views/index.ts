// The readable text of every command's answer, by command path: one renderer for the SSH front
// end (without `--json`) and for `exectl run` on a terminal, so both show the same text. Pure
// functions of the JSON answer: nothing here knows the service or the client.
import * as account from './account.js';
import { renderText } from './generic.js';
import { renderHelpText, type CommandHelp, type CommandListing } from './help.js';
import * as sharing from './sharing.js';
import { view, type TextView } from './view.js';
import * as vms from './vms.js';

export type { TextView, ViewFlag } from './view.js';

/** The answer of `help` and of every `--help`. */
export const helpView = view<CommandListing | CommandHelp>((data, _flags, width) =>
  renderHelpText(data, width),
);

/**
 * The views by command path. A path without one (only `ssh`, whose answer is a stream) gets the
 * generic text; a test keeps every other command of the registry here.
 */
const VIEWS: ReadonlyMap<string, TextView> = new Map([
  ['help', helpView],
  ['whoami', account.whoamiView],
  ['ls', vms.lsView],
  ['new', vms.newVmView],
  ['browser', account.browserView],
  ['cp', vms.newVmView],
  ['rm', vms.rmView],
  ['restart', vms.restartView],
  ['rename', vms.renameView],
  ['tag', vms.tagView],
  ['comment', vms.commentView],
  ['stat', vms.vmStateView],
  ['resize', vms.vmStateView],
  ['pause', vms.pauseView],
  ['resume', vms.pauseView],
  ['ssh-key list', account.sshKeyListView],
  ['ssh-key add', account.sshKeyAddView],
  ['ssh-key remove', account.sshKeyRemoveView],
  ['ssh-key rename', account.sshKeyRenameView],
  ['ssh-key generate-api-key', account.apiKeyView],
  ['svc0-to-svc1', account.svc1View],
  ['share show', sharing.shareShowView],
  ['share port', sharing.sharePortView],
  ['share set-public', sharing.visibilityView],
  ['share set-private', sharing.visibilityView],
  ['share add', sharing.shareUsersView],
  ['share remove', sharing.shareUsersView],
  ['team', account.teamView],
  ['team members', account.membersView],
  ['team add', account.membersView],
  ['team remove', account.membersView],
  ['team leave', account.leaveView],
  ['integrations list', sharing.integrationListView],
  ['integrations add', sharing.integrationView],
  ['integrations remove', sharing.integrationRemoveView],
  ['integrations rename', sharing.integrationView],
  ['integrations attach', sharing.integrationView],
  ['integrations detach', sharing.integrationView],
]);

/** The view of the command at `path` (`ssh-key list`), or undefined for the generic text. */
export function textViewFor(path: string): TextView | undefined {
  return VIEWS.get(path);
}

/**
 * The readable text of `data`, ending in a newline: `view`'s (with the flags given) or, without
 * one, the generic form; control characters from data escaped (see {@link renderText}). With
 * `width` (a terminal's columns) its tables fit it.
 */
export function readableText(
  data: unknown,
  view: TextView | undefined,
  flags: ReadonlySet<string> = new Set(),
  width?: number,
): string {
  const custom = view === undefined ? undefined : (d: unknown) => view.render(d, flags, width);
  return renderText(data, custom, width);
}
