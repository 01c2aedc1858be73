import { StoreConflictError, withUniqueMessages } from './conflicts.js';
import { writeTransaction, type StoreContext } from './context.js';

export const INTEGRATION_TYPES = ['reflection', 'llm', 'github', 'http-proxy'] as const;
export type IntegrationType = (typeof INTEGRATION_TYPES)[number];

/** The reflection paths a `reflection` integration can opt into (SPEC §5). */
export const REFLECTION_FIELDS = [
  'email',
  'integrations',
  'tags',
  'comment',
  'default_port',
] as const;
export type ReflectionField = (typeof REFLECTION_FIELDS)[number];

/** Which VMs see an integration: all of the owner's, those with a tag, or one VM by name. */
export type AttachmentSpec = 'auto:all' | `tag:${string}` | `vm:${string}`;

export interface IntegrationRecord {
  id: number;
  accountId: number;
  /** Unique within the account. */
  name: string;
  type: IntegrationType;
  comment: string;
  /** Where requests are forwarded; null for `reflection`. */
  target: string | null;
  /** `K: V` lines added when forwarding. SECRET: never log or return them to a VM. */
  headers: string[];
  /** Sorted. */
  attachments: AttachmentSpec[];
  /** For `reflection`: the fields it exposes (all by default); empty for other types. */
  reflectionFields: ReflectionField[];
  createdAt: string;
}

export interface NewIntegration {
  accountId: number;
  name: string;
  type: IntegrationType;
  comment?: string;
  target?: string | null;
  headers?: string[];
  attachments?: AttachmentSpec[];
  reflectionFields?: ReflectionField[];
}

/** The fields `updateIntegration` can change; absent ones are kept. */
export type IntegrationChanges = Partial<
  Pick<IntegrationRecord, 'comment' | 'target' | 'headers' | 'reflectionFields'>
>;

/** What `integrationsForVm` needs to know about the VM. */
export interface VmIdentity {
  id: number;
  name: string;
  accountId: number;
}

export interface IntegrationStore {
  /** Creates an integration. Conflict: `integration "n" already exists`. */
  createIntegration(input: NewIntegration): IntegrationRecord;
  getIntegration(accountId: number, name: string): IntegrationRecord | undefined;
  /** The account's integrations by name. */
  listIntegrations(accountId: number): IntegrationRecord[];
  updateIntegration(integrationId: number, changes: IntegrationChanges): IntegrationRecord;
  renameIntegration(integrationId: number, newName: string): IntegrationRecord;
  /** Deletes the integration with its attachments; returns what was deleted. */
  removeIntegration(integrationId: number): IntegrationRecord;
  /** Conflict: `integration "n" is already attached to SPEC`. */
  attachIntegration(integrationId: number, spec: AttachmentSpec): IntegrationRecord;
  /** Conflict: `integration "n" is not attached to SPEC`. */
  detachIntegration(integrationId: number, spec: AttachmentSpec): IntegrationRecord;
  /**
   * The integrations a VM sees: those of the VM's owner with any attachment matching it —
   * `auto:all`, `tag:<one of the VM's tags>` or `vm:<its name>` — by name. Hot path for
   * reflection: indexed lookups only.
   */
  integrationsForVm(vm: VmIdentity): IntegrationRecord[];
}

interface IntegrationRow {
  id: number;
  account_id: number;
  name: string;
  type: IntegrationType;
  comment: string;
  target: string | null;
  headers: string;
  reflection_fields: string;
  created_at: string;
  attachments: string;
}

const INTEGRATION_COLUMNS = `i.id, i.account_id, i.name, i.type, i.comment, i.target, i.headers,
  i.reflection_fields, i.created_at,
  (SELECT json_group_array(a.spec ORDER BY a.spec) FROM integration_attachments a
   WHERE a.integration_id = i.id) AS attachments`;

/** Exported so a test can check its query plan. */
export const INTEGRATIONS_FOR_VM_SQL = `SELECT ${INTEGRATION_COLUMNS} FROM integrations i
  WHERE i.account_id = @accountId AND EXISTS (
    SELECT 1 FROM integration_attachments a
    WHERE a.integration_id = i.id AND (
      a.spec = 'auto:all' OR a.spec = 'vm:' || @vmName
      OR a.spec IN (SELECT 'tag:' || t.tag FROM vm_tags t WHERE t.vm_id = @vmId)))
  ORDER BY i.name`;

function toRecord(row: IntegrationRow): IntegrationRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    type: row.type,
    comment: row.comment,
    target: row.target,
    headers: JSON.parse(row.headers) as string[],
    attachments: JSON.parse(row.attachments) as AttachmentSpec[],
    reflectionFields: JSON.parse(row.reflection_fields) as ReflectionField[],
    createdAt: row.created_at,
  };
}

export function integrationStore(ctx: StoreContext): IntegrationStore {
  const { db } = ctx;
  const insert = db.prepare<
    [number, string, string, string, string | null, string, string, string]
  >(
    `INSERT INTO integrations
       (account_id, name, type, comment, target, headers, reflection_fields, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertAttachment = db.prepare<[number, string]>(
    'INSERT INTO integration_attachments (integration_id, spec) VALUES (?, ?)',
  );
  const deleteAttachment = db.prepare<[number, string]>(
    'DELETE FROM integration_attachments WHERE integration_id = ? AND spec = ?',
  );
  const byId = db.prepare<[number], IntegrationRow>(
    `SELECT ${INTEGRATION_COLUMNS} FROM integrations i WHERE i.id = ?`,
  );
  const byName = db.prepare<[number, string], IntegrationRow>(
    `SELECT ${INTEGRATION_COLUMNS} FROM integrations i WHERE i.account_id = ? AND i.name = ?`,
  );
  const byAccount = db.prepare<[number], IntegrationRow>(
    `SELECT ${INTEGRATION_COLUMNS} FROM integrations i WHERE i.account_id = ? ORDER BY i.name`,
  );
  const forVm = db.prepare<[{ accountId: number; vmName: string; vmId: number }], IntegrationRow>(
    INTEGRATIONS_FOR_VM_SQL,
  );
  const update = db.prepare<[string, string | null, string, string, number]>(
    `UPDATE integrations SET comment = ?, target = ?, headers = ?, reflection_fields = ?
     WHERE id = ?`,
  );
  const rename = db.prepare<[string, number]>('UPDATE integrations SET name = ? WHERE id = ?');
  const remove = db.prepare<[number]>('DELETE FROM integrations WHERE id = ?');

  const requireIntegration = (id: number): IntegrationRecord => {
    const row = byId.get(id);
    if (row === undefined)
      throw new StoreConflictError('not_found', 'integration no longer exists');
    return toRecord(row);
  };

  return {
    createIntegration: writeTransaction(ctx, (input: NewIntegration) => {
      const reflectionFields =
        input.reflectionFields ?? (input.type === 'reflection' ? [...REFLECTION_FIELDS] : []);
      const { lastInsertRowid } = withUniqueMessages(
        () =>
          insert.run(
            input.accountId,
            input.name,
            input.type,
            input.comment ?? '',
            input.target ?? null,
            JSON.stringify(input.headers ?? []),
            JSON.stringify(reflectionFields),
            ctx.timestamp(),
          ),
        {
          'integrations.account_id, integrations.name': `integration "${input.name}" already exists`,
        },
      );
      const id = Number(lastInsertRowid);
      for (const spec of new Set(input.attachments)) insertAttachment.run(id, spec);
      return requireIntegration(id);
    }),

    getIntegration(accountId, name) {
      const row = byName.get(accountId, name);
      return row === undefined ? undefined : toRecord(row);
    },

    listIntegrations(accountId) {
      return byAccount.all(accountId).map(toRecord);
    },

    updateIntegration: writeTransaction(ctx, (id: number, changes: IntegrationChanges) => {
      const current = requireIntegration(id);
      update.run(
        changes.comment ?? current.comment,
        changes.target === undefined ? current.target : changes.target,
        JSON.stringify(changes.headers ?? current.headers),
        JSON.stringify(changes.reflectionFields ?? current.reflectionFields),
        id,
      );
      return requireIntegration(id);
    }),

    renameIntegration: writeTransaction(ctx, (id: number, newName: string) => {
      requireIntegration(id);
      withUniqueMessages(() => rename.run(newName, id), {
        'integrations.account_id, integrations.name': `integration "${newName}" already exists`,
      });
      return requireIntegration(id);
    }),

    removeIntegration: writeTransaction(ctx, (id: number) => {
      const integration = requireIntegration(id);
      remove.run(id);
      return integration;
    }),

    attachIntegration: writeTransaction(ctx, (id: number, spec: AttachmentSpec) => {
      const { name } = requireIntegration(id);
      withUniqueMessages(() => insertAttachment.run(id, spec), {
        'integration_attachments.integration_id, integration_attachments.spec': `integration "${name}" is already attached to ${spec}`,
      });
      return requireIntegration(id);
    }),

    detachIntegration: writeTransaction(ctx, (id: number, spec: AttachmentSpec) => {
      const { name } = requireIntegration(id);
      if (deleteAttachment.run(id, spec).changes === 0) {
        throw new StoreConflictError(
          'not_found',
          `integration "${name}" is not attached to ${spec}`,
        );
      }
      return requireIntegration(id);
    }),

    integrationsForVm(vm) {
      return forVm.all({ accountId: vm.accountId, vmName: vm.name, vmId: vm.id }).map(toRecord);
    },
  };
}
