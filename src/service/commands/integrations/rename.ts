import { json, type ServiceCommand } from '../shared/command.js';
import { checkIntegrationName } from '../../rules/integrations.js';
import { refuseBeyondScope } from './attach-spec.js';
import { findIntegration, integrationView } from './view.js';

/**
 * `integrations rename <old> <new>` — renames one of the caller's integrations. Its address
 * inside VMs follows the name (`{reflection_url}/i/<new>`); attachments are kept.
 */
export const integrationsRenameCommand: ServiceCommand = {
  path: 'integrations rename',
  description: 'Rename one of your integrations (its address in VMs changes with it)',
  usage: 'integrations rename <old> <new>',
  flags: [],
  args: [
    { name: 'old', required: true },
    { name: 'new', required: true },
  ],
  examples: ['integrations rename openai llm'],
  mutates: true,
  async run(ctx, input) {
    const [oldName = '', newName = ''] = input.args;
    const integration = findIntegration(ctx, oldName);
    refuseBeyondScope(ctx, integration, 'rename');
    const renamed = ctx.deps.store.renameIntegration(integration.id, checkIntegrationName(newName));
    return json(integrationView(ctx, renamed));
  },
};
