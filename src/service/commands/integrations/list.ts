import { json, type ServiceCommand } from '../shared/command.js';
import { integrationView, type IntegrationView } from './view.js';

interface IntegrationsListData {
  integrations: IntegrationView[];
}

/**
 * `integrations list` — the caller's integrations by name, with their targets and attachments
 * and the names (never the values) of the headers they add.
 */
export const integrationsListCommand: ServiceCommand = {
  path: 'integrations list',
  description: 'List your integrations: type, target, attachments (header values stay secret)',
  usage: 'integrations list',
  flags: [],
  args: [],
  examples: ['integrations list'],
  mutates: false,
  async run(ctx) {
    const records = ctx.deps.store.listIntegrations(ctx.principal.accountId);
    const data: IntegrationsListData = { integrations: records.map(integrationView) };
    return json(data);
  },
};
