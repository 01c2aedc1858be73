import { json, type ServiceCommand } from '../shared/command.js';
import { refuseBeyondScope } from './attach-spec.js';
import { findIntegration } from './view.js';

interface RemovedData {
  removed: string;
}

/**
 * `integrations remove <name>` — deletes one of the caller's integrations with its
 * attachments; no VM reaches it afterwards. Removing `reflection` closes the reflection
 * interface to every VM until a reflection integration is attached again.
 */
export const integrationsRemoveCommand: ServiceCommand = {
  path: 'integrations remove',
  description: 'Remove one of your integrations (its VMs lose it at once)',
  usage: 'integrations remove <name>',
  flags: [],
  args: [{ name: 'name', required: true }],
  examples: ['integrations remove openai'],
  mutates: true,
  async run(ctx, input) {
    const integration = findIntegration(ctx, input.args[0] ?? '');
    refuseBeyondScope(ctx, integration, 'remove');
    const removed = ctx.deps.store.removeIntegration(integration.id);
    const data: RemovedData = { removed: removed.name };
    return json(data);
  },
};
