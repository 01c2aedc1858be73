import { json, type ServiceCommand } from '../shared/command.js';
import { detachableSpec } from './attach-spec.js';
import { findIntegration, integrationView } from './view.js';

/**
 * `integrations detach <name> <spec>` — removes one attachment. A VM still sees the
 * integration while another of its specs matches it (e.g. `auto:all` beside `vm:web`).
 */
export const integrationsDetachCommand: ServiceCommand = {
  path: 'integrations detach',
  description: 'Remove one attachment of an integration (auto:all, tag:<tag> or vm:<name>)',
  usage: 'integrations detach <name> <spec>',
  flags: [],
  args: [
    { name: 'name', required: true },
    { name: 'spec', required: true },
  ],
  examples: ['integrations detach openai tag:ai', 'integrations detach reflection auto:all'],
  mutates: true,
  async run(ctx, input) {
    const [name = '', specText = ''] = input.args;
    const integration = findIntegration(ctx, name);
    const spec = detachableSpec(ctx, specText);
    return json(integrationView(ctx, ctx.deps.store.detachIntegration(integration.id, spec)));
  },
};
