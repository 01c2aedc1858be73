import { json, type ServiceCommand } from '../shared/command.js';
import { integrationView } from './view.js';
import { isIntegrationInTagScope } from '../../rules/tag-scope.js';
import type { ListedIntegration } from '../../../text-views/sharing.js';

/**
 * `integrations list` — the caller's integrations by name, with their targets and attachments
 * and the names (never the values) of the headers they add, as a JSON array of the real
 * service's shape (`config` holds what the type is set up with). A tag-scoped key sees only
 * those attached to its tag.
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
    const data: ListedIntegration[] = records.map((record) => {
      const shown = integrationView(ctx, record);
      return {
        name: shown.name,
        type: shown.type,
        config: {
          target: shown.target,
          header_names: shown.header_names,
          ...(shown.type === 'reflection' ? { fields: shown.fields } : {}),
        },
        attachments: shown.attachments,
        comment: shown.comment,
      };
    });
    return json(data);
  },
};
