// The shape of a VM as stored and as returned, and the SQL that reads it.
import { DEFAULT_VM_LIMITS, type VmLimits } from '../vm/contract.js';

export type Visibility = 'private' | 'public';

/**
 * A VM's life cycle (SPEC §4): `creating` until its disk is made and its setup script ended,
 * then `running` ⇄ `paused`; `stopped` when its processes are gone (boot failed, init died);
 * `failed` when its setup script failed, ran out of time, or the server stopped during it.
 */
export type VmStatus = 'creating' | 'running' | 'paused' | 'stopped' | 'failed';

/** The image a VM boots (SPEC §4a); null on a VM of the default base system. */
export interface VmImage {
  /** The reference as the user gave it (`ubuntu:22.04`). */
  reference: string;
  /** `sha256:…`, the manifest digest it was pulled by; null while the pull goes on. */
  digest: string | null;
  /** `--command`: `auto` (the image's Entrypoint and Cmd), `none`, or a shell command. */
  command: string;
}

/** The outcome of a VM's setup script, as `stat` shows it. */
export interface VmSetup {
  status: 'none' | 'running' | 'done' | 'failed';
  /** The last line of the script's output once it failed (or why it was cut off); else null. */
  lastLine: string | null;
}

export interface VmRecord {
  id: number;
  /** Globally unique: the VM proxy routes `<name>.<domain>` to it. */
  name: string;
  /** The owner. */
  accountId: number;
  emoji: string;
  /** Kept true by the VM machinery (vm/vm-machines.ts); the store does not interpret it. */
  status: VmStatus;
  /** Sorted, without duplicates. */
  tags: string[];
  /** `''` when none. */
  comment: string;
  defaultPort: number;
  visibility: Visibility;
  env: Record<string, string>;
  setupScript: string | null;
  setup: VmSetup;
  /** 32 random bytes, base64url; identifies the VM on the reflection listener. SECRET. */
  reflectionSecret: string;
  createdAt: string;
  /** Its limits, SPEC §4's defaults where `resize` set none. */
  limits: VmLimitsRecord;
  /** The image it boots; null: the default base system. */
  image: VmImage | null;
  /** The region it was made in: its owner's `set-region` then (rules/regions.ts). */
  region: string;
}

/** A VM's limits as stored: vm/'s one Limits type. */
export type VmLimitsRecord = VmLimits;
export { DEFAULT_VM_LIMITS };

export interface VmRow {
  id: number;
  name: string;
  account_id: number;
  emoji: string;
  status: VmStatus;
  comment: string;
  default_port: number;
  visibility: Visibility;
  env: string;
  setup_script: string | null;
  reflection_secret: string;
  created_at: string;
  tags: string;
  cpus: number | null;
  memory_bytes: number | null;
  pids: number | null;
  disk_bytes: number | null;
  setup_status: VmSetup['status'] | null;
  setup_last_line: string | null;
  image: string | null;
  image_digest: string | null;
  image_command: string | null;
  region: string;
}

export const VM_COLUMNS = `v.id, v.name, v.account_id, v.emoji, v.status, v.comment, v.default_port,
  v.visibility, v.env, v.setup_script, v.reflection_secret, v.created_at,
  v.cpus, v.memory_bytes, v.pids, v.disk_bytes, v.setup_status, v.setup_last_line, v.region,
  v.image, v.image_digest, v.image_command,
  (SELECT json_group_array(t.tag ORDER BY t.tag) FROM vm_tags t WHERE t.vm_id = v.id) AS tags`;

/** The hot-path lookups, exported so a test can check their query plans. */
export const GET_VM_BY_NAME_SQL = `SELECT ${VM_COLUMNS} FROM vms v WHERE v.name = ?`;
export const GET_VM_BY_REFLECTION_SECRET_SQL = `SELECT ${VM_COLUMNS} FROM vms v WHERE v.reflection_secret = ?`;
export const LIST_VMS_VISIBLE_TO_SQL = `SELECT ${VM_COLUMNS} FROM vms v
  WHERE v.id IN (
    SELECT id FROM vms WHERE account_id = @accountId
    UNION
    SELECT vm_id FROM vm_shares WHERE email = (SELECT email FROM accounts WHERE id = @accountId))
  AND (@pattern IS NULL OR v.name GLOB @pattern
       OR EXISTS (SELECT 1 FROM vm_tags t WHERE t.vm_id = v.id AND t.tag GLOB @pattern))
  ORDER BY v.name`;

export function toVmRecord(row: VmRow): VmRecord {
  return {
    id: row.id,
    name: row.name,
    accountId: row.account_id,
    emoji: row.emoji,
    status: row.status,
    tags: JSON.parse(row.tags) as string[],
    comment: row.comment,
    defaultPort: row.default_port,
    visibility: row.visibility,
    env: JSON.parse(row.env) as Record<string, string>,
    setupScript: row.setup_script,
    setup: {
      status: row.setup_status ?? (row.setup_script === null ? 'none' : 'done'),
      lastLine: row.setup_last_line,
    },
    reflectionSecret: row.reflection_secret,
    createdAt: row.created_at,
    limits: {
      cpus: row.cpus ?? DEFAULT_VM_LIMITS.cpus,
      memoryBytes: row.memory_bytes ?? DEFAULT_VM_LIMITS.memoryBytes,
      pids: row.pids ?? DEFAULT_VM_LIMITS.pids,
      diskBytes: row.disk_bytes ?? DEFAULT_VM_LIMITS.diskBytes,
    },
    image:
      row.image === null
        ? null
        : { reference: row.image, digest: row.image_digest, command: row.image_command ?? 'auto' },
    region: row.region,
  };
}
