// The `integrations` group (SPEC §3, §5), in the order `help` lists it.
import { integrationsAddCommand } from './add.js';
import { integrationsAttachCommand } from './attach.js';
import { integrationsDetachCommand } from './detach.js';
import { integrationsListCommand } from './list.js';
import { integrationsRemoveCommand } from './remove.js';
import { integrationsRenameCommand } from './rename.js';

export const INTEGRATIONS_GROUP = {
  path: 'integrations',
  description: 'Give your VMs services whose secrets stay outside them',
};

export const INTEGRATIONS_COMMANDS = [
  integrationsListCommand,
  integrationsAddCommand,
  integrationsRemoveCommand,
  integrationsRenameCommand,
  integrationsAttachCommand,
  integrationsDetachCommand,
];
