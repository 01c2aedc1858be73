// The command manifest: every command path the service offers, in the order `help` lists
// them, with what both sides need to know of it. The service's registry is built from it
// (service/commands/index.ts registers each path's definition in this order), the readable
// views are looked up in it (text-views/index.ts), and the client reads the rest without asking
// the server: the path of a command line (to mint a token for exactly that command) and
// whether a failed request may be repeated safely.
import * as account from './text-views/account.js';
import { helpView } from './text-views/help.js';
import * as settings from './text-views/settings.js';
import * as sharing from './text-views/sharing.js';
import type { TextView } from './text-views/view.js';
import * as vms from './text-views/vms.js';

interface CatalogEntry {
  path: string;
  /** Changes state: never retried automatically. */
  mutates: boolean;
  /**
   * Its answer's readable text (SSH without `--json`, `exectl run` on a terminal); absent:
   * the generic text (only `ssh`, whose answer is a stream).
   */
  view?: TextView;
}

export const COMMAND_CATALOG: readonly CatalogEntry[] = [
  { path: 'help', mutates: false, view: helpView },
  { path: 'whoami', mutates: false, view: account.whoamiView },
  { path: 'ls', mutates: false, view: vms.lsView },
  { path: 'new', mutates: true, view: vms.newVmView },
  { path: 'browser', mutates: true, view: account.browserView },
  { path: 'cp', mutates: true, view: vms.newVmView },
  { path: 'rm', mutates: true, view: vms.rmView },
  { path: 'restart', mutates: true, view: vms.restartView },
  { path: 'rename', mutates: true, view: vms.renameView },
  { path: 'tag', mutates: true, view: vms.tagView },
  { path: 'comment', mutates: true, view: vms.commentView },
  { path: 'stat', mutates: false, view: vms.vmStateView },
  { path: 'resize', mutates: true, view: vms.vmStateView },
  { path: 'pause', mutates: true, view: vms.pauseView },
  { path: 'resume', mutates: true, view: vms.pauseView },
  { path: 'ssh-key list', mutates: false, view: account.sshKeyListView },
  { path: 'ssh-key add', mutates: true, view: account.sshKeyAddView },
  { path: 'ssh-key remove', mutates: true, view: account.sshKeyRemoveView },
  { path: 'ssh-key rename', mutates: true, view: account.sshKeyRenameView },
  { path: 'ssh-key generate-api-key', mutates: true, view: account.apiKeyView },
  { path: 'svc0-to-svc1', mutates: true, view: account.svc1View },
  { path: 'share show', mutates: false, view: sharing.shareShowView },
  { path: 'share port', mutates: true, view: sharing.sharePortView },
  { path: 'share set-public', mutates: true, view: sharing.visibilityView },
  { path: 'share set-private', mutates: true, view: sharing.visibilityView },
  { path: 'share add', mutates: true, view: sharing.shareUsersView },
  { path: 'share remove', mutates: true, view: sharing.shareUsersView },
  { path: 'share add-link', mutates: true, view: sharing.shareLinkView },
  { path: 'share remove-link', mutates: true, view: sharing.shareLinkView },
  { path: 'share access', mutates: true, view: sharing.teamAccessView },
  { path: 'domain add', mutates: true, view: settings.domainChangeView },
  { path: 'domain rm', mutates: true, view: settings.domainChangeView },
  { path: 'domain ls', mutates: false, view: settings.domainListView },
  { path: 'defaults read', mutates: false, view: settings.defaultsReadView },
  { path: 'defaults write', mutates: true, view: settings.defaultChangeView },
  { path: 'defaults delete', mutates: true, view: settings.defaultChangeView },
  { path: 'share receive-email', mutates: true, view: sharing.receiveEmailView },
  { path: 'team', mutates: false, view: account.teamView },
  { path: 'team members', mutates: false, view: account.membersView },
  { path: 'team add', mutates: true, view: account.membersView },
  { path: 'team remove', mutates: true, view: account.membersView },
  { path: 'team accept', mutates: true, view: account.teamView },
  { path: 'team decline', mutates: true, view: account.invitationsView },
  { path: 'team leave', mutates: true, view: account.leaveView },
  { path: 'set-region', mutates: true, view: account.setRegionView },
  { path: 'integrations list', mutates: false, view: sharing.integrationListView },
  { path: 'integrations add', mutates: true, view: sharing.integrationView },
  { path: 'integrations remove', mutates: true, view: sharing.integrationRemoveView },
  { path: 'integrations rename', mutates: true, view: sharing.integrationView },
  { path: 'integrations attach', mutates: true, view: sharing.integrationView },
  { path: 'integrations detach', mutates: true, view: sharing.integrationView },
  // Runs arbitrary code in a VM: never assumed safe to repeat.
  { path: 'ssh', mutates: true },
];

/**
 * The command path a command line's words name: the longest catalogue path that prefixes them
 * (`['ssh-key', 'list', '--json']` → `ssh-key list`), or undefined when none does.
 */
export function catalogPathOf(words: readonly string[]): CatalogEntry | undefined {
  let best: CatalogEntry | undefined;
  for (const entry of COMMAND_CATALOG) {
    const parts = entry.path.split(' ');
    if (
      parts.every((p, i) => words[i] === p) &&
      parts.length > (best?.path.split(' ').length ?? 0)
    ) {
      best = entry;
    }
  }
  return best;
}
