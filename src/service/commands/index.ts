import { COMMAND_CATALOG } from '../../command-catalog.js';
import { EXECTL_DIALECT, type Dialect } from '../../dialects.js';
import type { ServiceDeps } from '../deps.js';
import { CommandRegistry } from '../dispatch/registry.js';
import type { CommandDefinition } from '../dispatch/types.js';
import { browserCommand } from './browser.js';
import { commentCommand } from './comment.js';
import { cpCommand } from './cp.js';
import { defaultsReadCommand } from './defaults/read.js';
import { defaultsDeleteCommand, defaultsWriteCommand } from './defaults/write.js';
import { domainAddCommand } from './domain/add.js';
import { domainLsCommand } from './domain/ls.js';
import { domainRmCommand } from './domain/rm.js';
import { helpCommand } from './help.js';
import { INTEGRATIONS_COMMANDS, INTEGRATIONS_GROUP } from './integrations/index.js';
import { lsCommand } from './ls.js';
import { pauseVmCommand, resumeVmCommand } from './machine/pause.js';
import { resizeCommand } from './machine/resize.js';
import { statCommand } from './machine/stat.js';
import { newCommand } from './new.js';
import { renameCommand } from './rename.js';
import { restartCommand } from './restart.js';
import { rmCommand } from './rm.js';
import { shareAddCommand, shareRemoveCommand } from './share/users.js';
import { sharePortCommand } from './share/port.js';
import { shareAccessCommand } from './share/access.js';
import { shareAddLinkCommand, shareRemoveLinkCommand } from './share/links.js';
import { shareReceiveEmailCommand } from './share/receive-email.js';
import { shareSetPrivateCommand, shareSetPublicCommand } from './share/visibility.js';
import { shareShowCommand } from './share/show.js';
import { setRegionCommand } from './set-region.js';
import { sshCommand } from './ssh.js';
import { sshKeyAddCommand } from './ssh-key/add.js';
import { generateApiKeyCommand } from './ssh-key/generate-api-key.js';
import { sshKeyListCommand } from './ssh-key/list.js';
import { sshKeyRemoveCommand } from './ssh-key/remove.js';
import { sshKeyRenameCommand } from './ssh-key/rename.js';
import { svc0ToSvc1Command } from './svc0-to-svc1.js';
import { tagCommand } from './tag.js';
import { teamAddCommand, teamRemoveCommand } from './team/membership.js';
import { teamAcceptCommand, teamDeclineCommand } from './team/invitation.js';
import { teamLeaveCommand } from './team/leave.js';
import { teamMembersCommand } from './team/members.js';
import { teamCommand } from './team/show.js';
import { whoamiCommand } from './whoami.js';

/** Every command's definition; the catalogue says which paths there are and in what order. */
const DEFINITIONS: readonly CommandDefinition<ServiceDeps>[] = [
  helpCommand,
  whoamiCommand,
  lsCommand,
  newCommand,
  browserCommand,
  cpCommand,
  rmCommand,
  restartCommand,
  renameCommand,
  tagCommand,
  commentCommand,
  statCommand,
  resizeCommand,
  pauseVmCommand,
  resumeVmCommand,
  sshKeyListCommand,
  sshKeyAddCommand,
  sshKeyRemoveCommand,
  sshKeyRenameCommand,
  generateApiKeyCommand,
  svc0ToSvc1Command,
  shareShowCommand,
  sharePortCommand,
  shareSetPublicCommand,
  shareSetPrivateCommand,
  shareAddCommand,
  shareRemoveCommand,
  shareAddLinkCommand,
  shareRemoveLinkCommand,
  shareAccessCommand,
  domainAddCommand,
  domainRmCommand,
  domainLsCommand,
  defaultsReadCommand,
  defaultsWriteCommand,
  defaultsDeleteCommand,
  shareReceiveEmailCommand,
  teamCommand,
  teamMembersCommand,
  teamAddCommand,
  teamRemoveCommand,
  teamAcceptCommand,
  teamDeclineCommand,
  teamLeaveCommand,
  setRegionCommand,
  ...INTEGRATIONS_COMMANDS,
  sshCommand,
];

/**
 * Other names of commands in every mode, as the real service's command reference lists them
 * (`Aliases: add-share-link`): alias path → the command's own path.
 */
const ALIASES: Readonly<Record<string, string>> = {
  'share add-share-link': 'share add-link',
  'share remove-share-link': 'share remove-link',
};

/** The groups that are no command themselves, registered before their first subcommand. */
const GROUPS = new Map([
  ['ssh-key', { path: 'ssh-key', description: 'Manage your SSH keys and API tokens' }],
  ['share', { path: 'share', description: 'Share your VMs with users or the public' }],
  ['domain', { path: 'domain', description: 'Route domains of your own to your VMs' }],
  ['defaults', { path: 'defaults', description: "Your account's defaults for later commands" }],
  ['integrations', INTEGRATIONS_GROUP],
]);

/**
 * The service's command tree (SPEC §3), in the command catalogue's order (the order `help`
 * lists): each catalogue path's definition, its group first where the group is no command
 * (`ssh-key`, `share`, `integrations`; `team` is a command and the parent of `team members`),
 * then the aliases of `dialects` (`exe0-to-exe1` under `--compat exe.dev`).
 * Throws when the catalogue and the definitions disagree, so neither can drift. A fresh
 * registry per call: it holds no state of its own.
 */
export function buildRegistry(
  dialects: readonly Dialect[] = [EXECTL_DIALECT],
): CommandRegistry<ServiceDeps> {
  const byPath = new Map(DEFINITIONS.map((definition) => [definition.path, definition]));
  const registry = new CommandRegistry<ServiceDeps>();
  const groupsMade = new Set<string>();
  for (const { path } of COMMAND_CATALOG) {
    const definition = byPath.get(path);
    if (definition === undefined) throw new Error(`catalogue path "${path}" has no definition`);
    byPath.delete(path);
    const group = GROUPS.get(path.split(' ')[0]!);
    if (group !== undefined && !groupsMade.has(group.path)) {
      registry.registerGroup(group);
      groupsMade.add(group.path);
    }
    registry.register(definition);
  }
  const unlisted = [...byPath.keys()];
  if (unlisted.length > 0) throw new Error(`not in the command catalogue: ${unlisted.join(', ')}`);
  for (const [alias, of] of Object.entries(ALIASES))
    registry.registerAlias(alias, of, EXECTL_DIALECT);
  // The other names of `--compat` (SPEC §12), listed after exectl's own.
  for (const dialect of dialects) {
    for (const [alias, of] of Object.entries(dialect.commandAliases)) {
      registry.registerAlias(alias, of, dialect);
    }
  }
  return registry;
}
