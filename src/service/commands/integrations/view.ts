// How the integrations commands show an integration, and how they find one by name.
import { notFound } from '../../../errors.js';
import type { IntegrationRecord } from '../../store/index.js';
import type { ServiceContext } from '../shared/command.js';
import { quote } from '../../rules/validate.js';
import { isIntegrationInTagScope } from '../../rules/tag-scope.js';
import { isWithinTagScope } from './attach-spec.js';

/**
 * One integration as every integrations command answers it. `header_names` lists the names of
 * its configured headers only: their values are secrets and never leave the server, not even
 * to the owner. `fields` is what a reflection integration opens (`[]` for other types).
 */
export interface IntegrationView {
  name: string;
  type: IntegrationRecord['type'];
  comment: string;
  target: string | null;
  attachments: string[];
  header_names: string[];
  fields: string[];
}

/**
 * `record` as the caller may see it: a tag-scoped key sees only the attachments within its
 * scope (`tag:<its tag>`, `vm:` of a VM it sees), never the names of VMs past it.
 */
export function integrationView(ctx: ServiceContext, record: IntegrationRecord): IntegrationView {
  // Header names compare case-insensitively: each is listed once, as first typed.
  const headerNames = new Map<string, string>();
  for (const line of record.headers) {
    const name = line.slice(0, line.indexOf(':'));
    if (!headerNames.has(name.toLowerCase())) headerNames.set(name.toLowerCase(), name);
  }
  return {
    name: record.name,
    type: record.type,
    comment: record.comment,
    target: record.target,
    attachments: record.attachments.filter((spec) => isWithinTagScope(ctx, spec)),
    header_names: [...headerNames.values()],
    fields: record.reflectionFields,
  };
}

/**
 * The caller's integration called `name`. Integrations belong to one account: another
 * account's of the same name is simply not there, and for a tag-scoped key neither is one not
 * attached to its tag (else it could attach the owner's secrets to its own VMs).
 *
 * @throws 422 `integration "x" not found`.
 */
export function findIntegration(ctx: ServiceContext, name: string): IntegrationRecord {
  const integration = ctx.deps.store.getIntegration(ctx.principal.accountId, name);
  if (integration === undefined || !isIntegrationInTagScope(ctx.principal, integration)) {
    throw notFound(`integration ${quote(name)} not found`, 'integrations list');
  }
  return integration;
}
