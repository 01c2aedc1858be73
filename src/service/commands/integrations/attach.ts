import { json, type ServiceCommand } from '../shared/command.js';
import { attachableSpec } from './attach-spec.js';
import { findIntegration, integrationView } from './view.js';

/**
 * `integrations attach <name> <spec>` — one more way for VMs to see the integration:
 * `auto:all` (all the caller's VMs), `tag:<tag>` (those with the tag, now or later) or
 * `vm:<name>` (one of the caller's VMs; it follows a rename).
 */
export const integrationsAttachCommand: ServiceCommand = {
  path: 'integrations attach',
  description: 'Let VMs see an integration: auto:all, tag:<tag> or vm:<name>',
  usage: 'integrations attach <name> <spec>',
  flags: [],
  args: [
    { name: 'name', required: true },
    { name: 'spec', required: true },
  ],
  examples: ['integrations attach openai tag:ai', 'integrations attach gh vm:web'],
  mutates: true,
  async run(ctx, input) {
    const [name = '', specText = ''] = input.args;
    const integration = findIntegration(ctx, name);
    const spec = attachableSpec(ctx, specText);
    return json(integrationView(ctx, ctx.deps.store.attachIntegration(integration.id, spec)));
  },
};
