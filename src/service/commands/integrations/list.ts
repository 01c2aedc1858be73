import { json, type ServiceCommand } from '../shared/command.js';
import { integrationView, type IntegrationView } from './view.js';
import { isIntegrationInTagScope } from '../../rules/tag-scope.js';

interface IntegrationsListData {
  integrations: IntegrationView[];
}

/**
 * `integrations list` — the caller's integrations by name, with their targets and attachments
 * and the names (never the values) of the headers they add. A tag-scoped key sees only those
 * attached to its tag.
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
    const { principal } = ctx;
    const records = ctx.deps.store
      .listIntegrations(principal.accountId)
      .filter((integration) => isIntegrationInTagScope(principal, integration));
    const data: IntegrationsListData = {
      integrations: records.map((record) => integrationView(ctx, record)),
    };
    return json(data);
  },
};
