import { EXECTL_DIALECT, type Dialect } from '../../dialects.js';
import type { ServiceDeps } from '../deps.js';
import { CommandRegistry } from '../dispatch/registry.js';
import { browserCommand } from './browser.js';
import { commentCommand } from './comment.js';
import { cpCommand } from './cp.js';
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
import { shareSetPrivateCommand, shareSetPublicCommand } from './share/visibility.js';
import { shareShowCommand } from './share/show.js';
import { sshCommand } from './ssh.js';
import { sshKeyAddCommand } from './ssh-key/add.js';
import { generateApiKeyCommand } from './ssh-key/generate-api-key.js';
import { sshKeyListCommand } from './ssh-key/list.js';
import { sshKeyRemoveCommand } from './ssh-key/remove.js';
import { sshKeyRenameCommand } from './ssh-key/rename.js';
import { svc0ToSvc1Command } from './svc0-to-svc1.js';
import { tagCommand } from './tag.js';
import { teamAddCommand, teamRemoveCommand } from './team/membership.js';
import { teamLeaveCommand } from './team/leave.js';
import { teamMembersCommand } from './team/members.js';
import { teamCommand } from './team/show.js';
import { whoamiCommand } from './whoami.js';

/**
 * The service's command tree (SPEC §3), in the order `help` lists it: account and VM commands,
 * then the `ssh-key` and `share` groups, then `team` (a command that is also the parent of
 * `team members|add|remove|leave`), then the `integrations` group and `ssh`, then the aliases of
 * `dialects` (`exe0-to-exe1` under `--compat exe.dev`). A fresh registry per call: it holds no
 * state of its own.
 */
export function buildRegistry(
  dialects: readonly Dialect[] = [EXECTL_DIALECT],
): CommandRegistry<ServiceDeps> {
  const registry = new CommandRegistry<ServiceDeps>();
  for (const command of [
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
  ]) {
    registry.register(command);
  }

  registry.registerGroup({ path: 'ssh-key', description: 'Manage your SSH keys and API tokens' });
  for (const command of [
    sshKeyListCommand,
    sshKeyAddCommand,
    sshKeyRemoveCommand,
    sshKeyRenameCommand,
    generateApiKeyCommand,
  ]) {
    registry.register(command);
  }
  registry.register(svc0ToSvc1Command);

  registry.registerGroup({ path: 'share', description: 'Share your VMs with users or the public' });
  for (const command of [
    shareShowCommand,
    sharePortCommand,
    shareSetPublicCommand,
    shareSetPrivateCommand,
    shareAddCommand,
    shareRemoveCommand,
  ]) {
    registry.register(command);
  }

  for (const command of [
    teamCommand,
    teamMembersCommand,
    teamAddCommand,
    teamRemoveCommand,
    teamLeaveCommand,
  ]) {
    registry.register(command);
  }

  registry.registerGroup(INTEGRATIONS_GROUP);
  for (const command of INTEGRATIONS_COMMANDS) registry.register(command);
  registry.register(sshCommand);
  // The other names of `--compat` (SPEC §12), listed after exectl's own.
  for (const dialect of dialects) {
    for (const [alias, of] of Object.entries(dialect.commandAliases)) {
      registry.registerAlias(alias, of, dialect);
    }
  }
  return registry;
}
