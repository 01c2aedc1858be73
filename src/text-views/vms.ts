// Text views of the VM commands (SPEC §3): ls, new, cp, rm, restart, rename, tag, comment,
// stat, resize, pause, resume.
import { listCell, optionalCell, textRecord, textTable } from './table.js';
import { view } from './view.js';

/** A VM as `new` and `cp` answer it (SPEC §3). */
export interface VmSummary {
  vm_name: string;
  emoji: string;
  status: string;
  tags: string[];
  default_port: number;
  https_url: string;
  /** `vm+<name>@<host>` (SPEC §6a); these four are null with the SSH listener off. */
  ssh_dest: string | null;
  ssh_host: string | null;
  ssh_port: number | null;
  ssh_user: string | null;
  /** The region it was made in (`set-region`) and how it is shown; absent from older servers. */
  region?: string;
  region_display?: string;
  /** The image it boots, as given to `new --image` (SPEC §4a); null: the default system. */
  image: string | null;
}

/** The ssh command line that opens the VM, `-p` only off port 22; `-` with SSH off. */
function sshCommandCell(vm: VmSummary): string {
  if (vm.ssh_dest === null) return optionalCell(null);
  return vm.ssh_port === 22 || vm.ssh_port === null
    ? `ssh ${vm.ssh_dest}`
    : `ssh -p ${vm.ssh_port} ${vm.ssh_dest}`;
}

/** A VM as `ls` lists it: the summary plus its comment and creation time. */
export interface VmListing extends VmSummary {
  comment: string;
  created_at: string;
  /** With `-l` only. */
  cpus?: number;
  memory_bytes?: number;
  disk_bytes?: number;
}

/** `ls`: a table; `-l` adds comment, port, ssh command and creation time. */
export const lsView = view<{ vms: VmListing[] }>(
  (data, flags, width) => {
    const long = flags.has('long');
    const headers = ['name', 'status', 'tags', 'url'];
    if (long) headers.push('comment', 'port', 'ssh', 'region', 'created');
    const rows = data.vms.map((vm) => {
      const row = [`${vm.emoji} ${vm.vm_name}`, vm.status, listCell(vm.tags), vm.https_url];
      if (long) {
        row.push(
          optionalCell(vm.comment),
          String(vm.default_port),
          sshCommandCell(vm),
          optionalCell(vm.region ?? null),
          vm.created_at,
        );
      }
      return row;
    });
    return textTable(headers, rows, 'no vms', width);
  },
  [{ name: 'long', short: 'l' }],
);

/** `new` and `cp`: the new VM as `key: value` lines. */
export const newVmView = view<VmSummary>((data) =>
  textRecord([
    ['vm', `${data.emoji} ${data.vm_name}`],
    ['status', data.status],
    ['tags', listCell(data.tags)],
    ['port', String(data.default_port)],
    ['url', data.https_url],
    ['ssh', sshCommandCell(data)],
    ...(data.region === undefined ? [] : [['region', data.region] as [string, string]]),
  ]),
);

export const rmView = view<{ deleted: string[]; failed: { vm_name: string; error: string }[] }>(
  (data, _flags, width) => {
    const failures = data.failed.map((f) => [f.vm_name, f.error]);
    return (
      `deleted: ${listCell(data.deleted)}\n` +
      (failures.length === 0 ? '' : textTable(['vm', 'error'], failures, '', width))
    );
  },
);

export const restartView = view<{ vm_name: string }>((data) => `restarted ${data.vm_name}\n`);

export const renameView = view<{ vm_name: string; old_name: string }>(
  (data) => `renamed ${data.old_name} to ${data.vm_name}\n`,
);

export const tagView = view<{ vm_name: string; tags: string[] }>(
  (data) => `${data.vm_name}: ${listCell(data.tags)}\n`,
);

export const commentView = view<{ vm_name: string; comment: string }>((data) =>
  data.comment === '' ? `${data.vm_name}: comment cleared\n` : `${data.vm_name}: ${data.comment}\n`,
);

/** The answer of `stat` and `resize`: a VM's state, limits and live usage. */
export interface VmStateData {
  vm_name: string;
  status: string;
  /** The image it boots (SPEC §4a), and the manifest digest it was pulled by. */
  image: string | null;
  image_digest: string | null;
  created_at: string;
  booted_at: string | null;
  limits: {
    cpus: number | null;
    memory_bytes: number | null;
    pids: number | null;
    disk_bytes: number | null;
  };
  usage: {
    memory_bytes: number | null;
    pids: number | null;
    disk_bytes: number | null;
    cpu_seconds: number | null;
  };
  setup: { status: string; last_line: string | null };
  /** Present only while the VM's disk writes are held back (the server's disk is short). */
  disk_note?: string;
}

/** `stat` and `resize`: one `name: value` line each, sizes in MiB. */
export const vmStateView = view<VmStateData>((data) => {
  const mib = (n: number | null) => (n === null ? '-' : `${Math.round(n / 2 ** 20)} MiB`);
  const show = (n: number | null) => (n === null ? '-' : String(n));
  return [
    `vm:      ${data.vm_name} (${data.status})`,
    `created: ${data.created_at}`,
    `booted:  ${data.booted_at ?? '-'}`,
    `setup:   ${data.setup.status}${data.setup.last_line === null ? '' : ` (${data.setup.last_line})`}`,
    `cpus:    ${show(data.limits.cpus)} (used ${show(data.usage.cpu_seconds)} s)`,
    `memory:  ${mib(data.usage.memory_bytes)} of ${mib(data.limits.memory_bytes)}`,
    `pids:    ${show(data.usage.pids)} of ${show(data.limits.pids)}`,
    `disk:    ${mib(data.usage.disk_bytes)} of ${mib(data.limits.disk_bytes)}`,
    ...(data.disk_note === undefined ? [] : [`         ${data.disk_note}`]),
    '',
  ].join('\n');
});

/** `pause` and `resume`. */
export const pauseView = view<{ vm_name: string; status: string }>(
  (data) => `${data.vm_name} is ${data.status}\n`,
);
