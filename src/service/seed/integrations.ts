// The integrations of one seed account: created when missing, else updated field by field.
import { refuseForbiddenTarget, type TargetPolicy } from '../integrations/target-policy.js';
import { asSeedConflict, seedConflict, seedEntry, type SeedChanges } from './conflict.js';
import type { SeedAccount, SeedIntegration } from './parse.js';
import type { Account, IntegrationChanges, IntegrationRecord, Store } from '../store/index.js';
import type { LogSink } from '../config.js';
import { missingHeaderWarnings } from './missing-headers.js';

/**
 * Makes each integration of `entry` exist on `account` and match the fields the seed gives.
 * A target on one of the service's own listeners, or a private one unless the policy allows
 * it, is refused, as `integrations add` does. A header the file names without its value (an
 * export without secrets) that the integration still lacks is a warning on `log`.
 */
export async function applySeedIntegrations(
  { store, endpoints, allowPrivateTargets, log }: { store: Store; log: LogSink } & TargetPolicy,
  entry: SeedAccount,
  account: Account,
  changes: SeedChanges,
): Promise<void> {
  for (const wanted of entry.integrations) {
    if (wanted.target !== undefined) {
      await refuseForbiddenTarget(wanted.target, { endpoints, allowPrivateTargets }).catch(
        (err: unknown) => {
          throw asSeedConflict(wanted.path, err);
        },
      );
    }
    seedEntry(wanted.path, () => {
      const existing = store.getIntegration(account.id, wanted.name);
      if (existing === undefined) {
        create(store, wanted, account);
        changes.push(`created integration "${wanted.name}" of ${account.email}`);
      } else if (update(store, wanted, existing)) {
        changes.push(`updated integration "${wanted.name}" of ${account.email}`);
      }
    });
    const stored = store.getIntegration(account.id, wanted.name);
    if (stored === undefined) continue;
    for (const warning of missingHeaderWarnings(wanted, stored, account)) log(warning, 'warn');
  }
}

function create(store: Store, wanted: SeedIntegration, account: Account): void {
  if (wanted.type !== 'reflection' && wanted.target === undefined) {
    throw seedConflict(wanted.path, `integration "${wanted.name}" needs a target to be created`);
  }
  store.createIntegration({
    accountId: account.id,
    name: wanted.name,
    type: wanted.type,
    comment: wanted.comment ?? '',
    target: wanted.target ?? null,
    headers: wanted.headers ?? [],
    attachments: wanted.attach ?? [],
    ...(wanted.fields === undefined ? {} : { reflectionFields: wanted.fields }),
  });
}

/** Returns whether anything had to change. */
function update(store: Store, wanted: SeedIntegration, existing: IntegrationRecord): boolean {
  if (existing.type !== wanted.type) {
    throw seedConflict(
      wanted.path,
      `integration "${wanted.name}" exists with type ${existing.type}, not ${wanted.type}`,
    );
  }
  const fields: IntegrationChanges = {};
  if (wanted.comment !== undefined && wanted.comment !== existing.comment) {
    fields.comment = wanted.comment;
  }
  if (wanted.target !== undefined && wanted.target !== existing.target) {
    fields.target = wanted.target;
  }
  if (
    wanted.headers !== undefined &&
    JSON.stringify(wanted.headers) !== JSON.stringify(existing.headers)
  ) {
    fields.headers = wanted.headers;
  }
  if (
    wanted.fields !== undefined &&
    JSON.stringify(wanted.fields) !== JSON.stringify(existing.reflectionFields)
  ) {
    fields.reflectionFields = wanted.fields;
  }
  const changed = Object.keys(fields).length > 0;
  if (changed) store.updateIntegration(existing.id, fields);

  if (wanted.attach === undefined) return changed;
  const attach = new Set(wanted.attach);
  const added = [...attach].filter((spec) => !existing.attachments.includes(spec));
  const removed = existing.attachments.filter((spec) => !attach.has(spec));
  for (const spec of added) store.attachIntegration(existing.id, spec);
  for (const spec of removed) store.detachIntegration(existing.id, spec);
  return changed || added.length > 0 || removed.length > 0;
}
