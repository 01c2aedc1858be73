import { StoreConflictError, withUniqueMessages } from './conflicts.js';
import { writeTransaction, type StoreContext } from './context.js';
import { newReflectionSecret } from './random-ids.js';
import { reflectionSecretRotation } from './reflection-secrets.js';
import {
  GET_VM_BY_NAME_SQL,
  GET_VM_BY_REFLECTION_SECRET_SQL,
  LIST_VMS_VISIBLE_TO_SQL,
  VM_COLUMNS,
  toVmRecord,
  type Visibility,
  type VmRecord,
  type VmLimitsRecord,
  type VmRow,
  type VmImage,
  type VmSetup,
  type VmStatus,
} from './vm-records.js';

export type { Visibility, VmImage, VmRecord, VmSetup, VmStatus } from './vm-records.js';

export interface NewVm {
  accountId: number;
  name: string;
  emoji: string;
  status: VmStatus;
  tags?: string[];
  comment?: string;
  /** Default 8000. */
  defaultPort?: number;
  /** Default `private`. */
  visibility?: Visibility;
  env?: Record<string, string>;
  setupScript?: string | null;
  /** Default: SPEC §4's (stored as NULL, so they follow the defaults); `cp` copies its source's. */
  limits?: VmLimitsRecord;
  /** Names of the owner's integrations to attach to this VM (`vm:<name>`), atomically. */
  integrations?: string[];
  /** The image it boots (its digest unknown yet, or `cp`'s source's); default: none. */
  image?: VmImage | null;
  /** Default `local`. */
  region?: string;
}

export interface VmStore {
  /**
   * Creates the VM record with its tags and integration attachments in one transaction.
   * Conflicts: `vm name "n" is not available: choose another`; `integration "i" not found`.
   */
  createVm(input: NewVm): VmRecord;
  getVm(vmId: number): VmRecord | undefined;
  /** Hot path (VM proxy, every command naming a VM): one indexed lookup. */
  getVmByName(name: string): VmRecord | undefined;
  /** Hot path (reflection listener): one indexed lookup. */
  getVmByReflectionSecret(secret: string): VmRecord | undefined;
  /** The account's own VMs, by name. */
  listVmsOwnedBy(accountId: number): VmRecord[];
  /** Every VM in `status`, of every account, by id (server start: boots, unfinished creations). */
  listVmsWithStatus(status: VmStatus): VmRecord[];
  /** The id of every VM, of every account, in order (server start: the VMs' SSH addresses). */
  listVmIds(): number[];
  /**
   * The account's own VMs and those shared with its email, by name. With `pattern`, only VMs
   * whose name or one of whose tags matches it as an SQLite GLOB (`*`, `?`, `[...]`,
   * case-sensitive).
   */
  listVmsVisibleTo(accountId: number, pattern?: string): VmRecord[];
  /**
   * Renames the VM, moves the owner's `vm:<old>` attachments to `vm:<new>` and gives it a new
   * reflection secret, atomically.
   */
  renameVm(vmId: number, newName: string): VmRecord;
  /** Replaces the VM's tags. */
  setTags(vmId: number, tags: readonly string[]): VmRecord;
  /** Adds tags; ones already set are ignored. */
  addTags(vmId: number, tags: readonly string[]): VmRecord;
  /** Removes tags; ones not set are ignored. */
  removeTags(vmId: number, tags: readonly string[]): VmRecord;
  setComment(vmId: number, comment: string): VmRecord;
  setDefaultPort(vmId: number, port: number): VmRecord;
  setVisibility(vmId: number, visibility: Visibility): VmRecord;
  setStatus(vmId: number, status: VmStatus): VmRecord;
  /**
   * Sets the status only when it is one of `from` (a VM's processes ended or came back: a VM
   * being created, failed or paused keeps its status); undefined when the VM is gone.
   */
  setStatusIf(vmId: number, from: readonly VmStatus[], to: VmStatus): VmRecord | undefined;
  /** Records the setup script's outcome and the status it leaves, together. */
  setSetup(vmId: number, setup: VmSetup, status: VmStatus): VmRecord;
  /** Stores the VM's limits (`resize`; the runtime applied them). */
  setLimits(vmId: number, limits: VmLimitsRecord): VmRecord;
  /** Replaces the environment the VM's commands get (from the next command on). */
  setEnv(vmId: number, env: Record<string, string>): VmRecord;
  /** Stores the digest its image was pulled by (SPEC §4a). */
  setImageDigest(vmId: number, digest: string): VmRecord;
  /**
   * Deletes the record with its tags, shares and the owner's `vm:<name>` attachments (so a
   * later VM of that name does not inherit them); returns what was deleted. The VM's disk and
   * processes are the VM runtime's business.
   */
  deleteVm(vmId: number): VmRecord;
}

/**
 * The conflict of a VM name in use. Names are global (each is an address, `<vm>.<domain>`), so
 * the name may be another account's: the words are the same whoever holds it, so that they
 * tell nobody which names other accounts use.
 */
function nameNotAvailable(name: string): string {
  return `vm name "${name}" is not available: choose another`;
}

// The owner's attachments naming one VM, for rename and delete.
const OWNER_VM_ATTACHMENTS = `spec = @spec AND integration_id IN
  (SELECT id FROM integrations WHERE account_id = @accountId)`;

export function vmStore(ctx: StoreContext): VmStore {
  const { db } = ctx;
  const insert = db.prepare<
    [
      number,
      string,
      string,
      string,
      string,
      number,
      Visibility,
      string,
      string | null,
      string,
      string,
      VmSetup['status'],
      number | null,
      number | null,
      number | null,
      number | null,
      string,
      string | null,
      string | null,
      string | null,
    ]
  >(
    `INSERT INTO vms (account_id, name, emoji, status, comment, default_port, visibility, env,
       setup_script, reflection_secret, created_at, setup_status, cpus, memory_bytes, pids,
       disk_bytes, region, image, image_digest, image_command)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const byId = db.prepare<[number], VmRow>(`SELECT ${VM_COLUMNS} FROM vms v WHERE v.id = ?`);
  const byName = db.prepare<[string], VmRow>(GET_VM_BY_NAME_SQL);
  const bySecret = db.prepare<[string], VmRow>(GET_VM_BY_REFLECTION_SECRET_SQL);
  const ownedBy = db.prepare<[number], VmRow>(
    `SELECT ${VM_COLUMNS} FROM vms v WHERE v.account_id = ? ORDER BY v.name`,
  );
  const withStatus = db.prepare<[VmStatus], VmRow>(
    `SELECT ${VM_COLUMNS} FROM vms v WHERE v.status = ? ORDER BY v.id`,
  );
  const allIds = db.prepare<[], { id: number }>('SELECT id FROM vms ORDER BY id');
  const visibleTo = db.prepare<[{ accountId: number; pattern: string | null }], VmRow>(
    LIST_VMS_VISIBLE_TO_SQL,
  );
  const addTag = db.prepare<[number, string]>(
    'INSERT OR IGNORE INTO vm_tags (vm_id, tag) VALUES (?, ?)',
  );
  const removeTag = db.prepare<[number, string]>('DELETE FROM vm_tags WHERE vm_id = ? AND tag = ?');
  const clearTags = db.prepare<[number]>('DELETE FROM vm_tags WHERE vm_id = ?');
  const attachByName = db.prepare<[{ spec: string; accountId: number; name: string }]>(
    `INSERT OR IGNORE INTO integration_attachments (integration_id, spec)
     SELECT id, @spec FROM integrations WHERE account_id = @accountId AND name = @name`,
  );
  const integrationExists = db.prepare<[number, string], { found: 1 }>(
    'SELECT 1 AS found FROM integrations WHERE account_id = ? AND name = ?',
  );
  // OR IGNORE: when an integration already has `vm:<new>`, its `vm:<old>` row is deleted below.
  const moveAttachments = db.prepare<[{ newSpec: string; spec: string; accountId: number }]>(
    `UPDATE OR IGNORE integration_attachments SET spec = @newSpec WHERE ${OWNER_VM_ATTACHMENTS}`,
  );
  const dropAttachments = db.prepare<[{ spec: string; accountId: number }]>(
    `DELETE FROM integration_attachments WHERE ${OWNER_VM_ATTACHMENTS}`,
  );
  const rename = db.prepare<[string, number]>('UPDATE vms SET name = ? WHERE id = ?');
  const setComment = db.prepare<[string, number]>('UPDATE vms SET comment = ? WHERE id = ?');
  const setPort = db.prepare<[number, number]>('UPDATE vms SET default_port = ? WHERE id = ?');
  const setVisibility = db.prepare<[Visibility, number]>(
    'UPDATE vms SET visibility = ? WHERE id = ?',
  );
  const setStatus = db.prepare<[VmStatus, number]>('UPDATE vms SET status = ? WHERE id = ?');
  const setStatusIf = db.prepare<[VmStatus, number, string]>(
    'UPDATE vms SET status = ? WHERE id = ? AND status IN (SELECT value FROM json_each(?))',
  );
  const setSetup = db.prepare<[VmSetup['status'], string | null, VmStatus, number]>(
    'UPDATE vms SET setup_status = ?, setup_last_line = ?, status = ? WHERE id = ?',
  );
  const setEnv = db.prepare<[string, number]>('UPDATE vms SET env = ? WHERE id = ?');
  const setImageDigest = db.prepare<[string, number]>(
    'UPDATE vms SET image_digest = ? WHERE id = ? AND image IS NOT NULL',
  );
  const setLimits = db.prepare(
    'UPDATE vms SET cpus = @cpus, memory_bytes = @memoryBytes, pids = @pids, disk_bytes = @diskBytes WHERE id = @id',
  );
  const remove = db.prepare<[number]>('DELETE FROM vms WHERE id = ?');
  const rotate = reflectionSecretRotation(ctx);

  const requireVm = (vmId: number): VmRecord => {
    const row = byId.get(vmId);
    if (row === undefined) throw new StoreConflictError('not_found', 'vm no longer exists');
    return toVmRecord(row);
  };

  /** Runs `change` on an existing VM in one transaction and returns the VM afterwards. */
  const changeVm = <A extends unknown[]>(change: (vm: VmRecord, ...args: A) => void) =>
    writeTransaction(ctx, (vmId: number, ...args: A): VmRecord => {
      change(requireVm(vmId), ...args);
      return requireVm(vmId);
    });

  return {
    createVm: writeTransaction(ctx, (input: NewVm) => {
      const { lastInsertRowid } = withUniqueMessages(
        () =>
          insert.run(
            input.accountId,
            input.name,
            input.emoji,
            input.status,
            input.comment ?? '',
            input.defaultPort ?? 8000,
            input.visibility ?? 'private',
            JSON.stringify(input.env ?? {}),
            input.setupScript ?? null,
            newReflectionSecret(),
            ctx.timestamp(),
            input.setupScript ? 'running' : 'none',
            input.limits?.cpus ?? null,
            input.limits?.memoryBytes ?? null,
            input.limits?.pids ?? null,
            input.limits?.diskBytes ?? null,
            input.region ?? 'local',
            input.image?.reference ?? null,
            input.image?.digest ?? null,
            input.image?.command ?? null,
          ),
        { 'vms.name': nameNotAvailable(input.name) },
      );
      const vmId = Number(lastInsertRowid);
      for (const tag of input.tags ?? []) addTag.run(vmId, tag);
      for (const name of input.integrations ?? []) {
        if (integrationExists.get(input.accountId, name) === undefined) {
          throw new StoreConflictError('not_found', `integration "${name}" not found`);
        }
        attachByName.run({ spec: `vm:${input.name}`, accountId: input.accountId, name });
      }
      return requireVm(vmId);
    }),

    getVm(vmId) {
      const row = byId.get(vmId);
      return row === undefined ? undefined : toVmRecord(row);
    },

    // Hot path (every request through the VM proxy): the raw row comes from the read cache while
    // the database is unchanged; toVmRecord makes a fresh object on every call.
    getVmByName(name) {
      const row = ctx.reads.get(`vn:${name}`, () => byName.get(name));
      return row === undefined ? undefined : toVmRecord(row);
    },

    getVmByReflectionSecret(secret) {
      const row = bySecret.get(secret);
      return row === undefined ? undefined : toVmRecord(row);
    },

    listVmsOwnedBy(accountId) {
      return ownedBy.all(accountId).map(toVmRecord);
    },

    listVmsWithStatus(status) {
      return withStatus.all(status).map(toVmRecord);
    },

    listVmIds() {
      return allIds.all().map((row) => row.id);
    },

    listVmsVisibleTo(accountId, pattern) {
      return visibleTo.all({ accountId, pattern: pattern ?? null }).map(toVmRecord);
    },

    renameVm: changeVm((vm, newName: string) => {
      // Renaming to the same name changes nothing (and must not drop the vm: attachments).
      if (newName === vm.name) return;
      withUniqueMessages(() => rename.run(newName, vm.id), {
        'vms.name': nameNotAvailable(newName),
      });
      const owner = { accountId: vm.accountId, spec: `vm:${vm.name}` };
      moveAttachments.run({ ...owner, newSpec: `vm:${newName}` });
      dropAttachments.run(owner);
      rotate.ofVm(vm.id);
    }),

    setTags: changeVm((vm, tags: readonly string[]) => {
      clearTags.run(vm.id);
      for (const tag of tags) addTag.run(vm.id, tag);
    }),

    addTags: changeVm((vm, tags: readonly string[]) => {
      for (const tag of tags) addTag.run(vm.id, tag);
    }),

    removeTags: changeVm((vm, tags: readonly string[]) => {
      for (const tag of tags) removeTag.run(vm.id, tag);
    }),

    setComment: changeVm((vm, comment: string) => setComment.run(comment, vm.id)),
    setDefaultPort: changeVm((vm, port: number) => setPort.run(port, vm.id)),
    setVisibility: changeVm((vm, visibility: Visibility) => setVisibility.run(visibility, vm.id)),
    setStatus: changeVm((vm, status: VmStatus) => setStatus.run(status, vm.id)),
    setStatusIf: writeTransaction(ctx, (vmId: number, from: readonly VmStatus[], to: VmStatus) => {
      setStatusIf.run(to, vmId, JSON.stringify(from));
      const row = byId.get(vmId);
      return row === undefined ? undefined : toVmRecord(row);
    }),
    setSetup: changeVm((vm, setup: VmSetup, status: VmStatus) =>
      setSetup.run(setup.status, setup.lastLine, status, vm.id),
    ),
    setEnv: changeVm((vm, env: Record<string, string>) => setEnv.run(JSON.stringify(env), vm.id)),
    setImageDigest: changeVm((vm, digest: string) => setImageDigest.run(digest, vm.id)),
    setLimits: changeVm((vm, limits: VmLimitsRecord) => setLimits.run({ ...limits, id: vm.id })),

    deleteVm: writeTransaction(ctx, (vmId: number) => {
      const vm = requireVm(vmId);
      dropAttachments.run({ accountId: vm.accountId, spec: `vm:${vm.name}` });
      remove.run(vmId);
      return vm;
    }),
  };
}
