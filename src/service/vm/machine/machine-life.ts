// The machine half of the bwrap runtime (server running as root): each VM's disk image, id
// range, cgroup and network, booted by machine/machine-boot.ts.
import { chmod, mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { VmCgroup } from '../cgroups/index.js';
import { createDisk } from '../disk/index.js';
import type { MountedDisk } from '../disk/index.js';
import {
  IMAGE_NAME,
  createImage,
  hasImage,
  imageSize,
  imageUsage,
  minimumImageSize,
  resizeImageOffline,
} from '../disk/index.js';
import { idBaseOf, releaseIdRange } from '../id-ranges.js';
import { startMachineInit, type MachineInit } from './machine-boot.js';
import type { MachineHost } from './machine-host.js';
import { DEFAULT_VM_LIMITS, type EnforcedLimits, type VmState } from '../contract.js';
import type { VmSpec } from '../runtime.js';
import { bootImage, serviceWords } from '../image/index.js';
import { commandEnv } from '../process/index.js';

/** The limits of `vm`, with the host's gaps (no cgroups) as null. */
function effectiveLimits(host: MachineHost, vm: VmSpec): EnforcedLimits {
  const limits = vm.limits ?? DEFAULT_VM_LIMITS;
  if (host.cgroups !== null) return limits;
  return { ...limits, cpus: null, memoryBytes: null, pids: null };
}

/** Makes the VM's disk folder, claims its id range and makes its image. */
export async function createMachineDisk(host: MachineHost, vm: VmSpec): Promise<void> {
  await createDisk(vm.diskDir);
  const base = await idBaseOf(vm.diskDir, host.registry);
  await makeImage(host, vm, base);
}

function makeImage(host: MachineHost, vm: VmSpec, base: number): Promise<void> {
  const size = (vm.limits ?? DEFAULT_VM_LIMITS).diskBytes;
  const scratch = join(host.runDir, `template-${size}.img`);
  return createImage(host.tools, host.images, vm.diskDir, size, base, scratch);
}

/** Boots the VM (its image made first for a disk of an older exectl). */
export async function bootMachine(host: MachineHost, vm: VmSpec): Promise<MachineInit> {
  const base = await idBaseOf(vm.diskDir, host.registry);
  if (!(await hasImage(vm.diskDir))) await makeImage(host, vm, base);
  const name = `vm-${base.toString(16)}`;
  const vmRun = join(host.runDir, name);
  const mountPoint = join(vmRun, 'disk');
  await mkdir(mountPoint, { recursive: true, mode: 0o711 });
  const lower = await lowerLayer(host, vm);
  const limits = effectiveLimits(host, vm);
  const cgroup = host.cgroups === null ? null : await VmCgroup.open(host.cgroups, name, limits);
  try {
    return await startMachineInit(host.tools, {
      hostname: vm.name,
      diskDir: resolve(vm.diskDir),
      idBase: base,
      cgroup,
      inbound: host.inbound(vm),
      mountPoint,
      vmRunDir: vmRun,
      ...lower,
      client: host.client,
    });
  } catch (err) {
    // A boot that failed leaves no cgroup behind (its processes, if any, are killed).
    await cgroup?.remove();
    throw err;
  }
}

// The base system and the host's system folders, or an image alone with its command.
async function lowerLayer(host: MachineHost, vm: VmSpec) {
  if (vm.image === undefined) {
    const service: string[] = [];
    return {
      baseSystem: host.baseSystem,
      systemFolders: host.systemFolders,
      lowerIds: null,
      service,
    };
  }
  const image = await bootImage(vm.image, host.registry);
  const env = commandEnv({ HOME: '/root', USER: 'root' }, vm.env);
  return {
    baseSystem: image.rootfs,
    systemFolders: [],
    lowerIds: image.lowerIds,
    service: serviceWords(vm.image.command, image.config, env),
  };
}

/** Gives the VM's id range back and deletes its disk; the VM is stopped. */
export async function removeMachineDisk(host: MachineHost, vm: VmSpec): Promise<void> {
  await releaseIdRange(vm.diskDir, host.registry);
  await rm(vm.diskDir, { recursive: true, force: true });
}

/** State, limits and usage of a VM; `init` when it runs. */
export async function machineState(
  host: MachineHost,
  vm: VmSpec,
  init: MachineInit | undefined,
  paused: boolean,
): Promise<VmState> {
  const size = await imageSize(vm.diskDir).catch(() => null);
  const limits = { ...effectiveLimits(host, vm), diskBytes: size };
  if (init === undefined) {
    const usage = { memoryBytes: null, pids: null, diskBytes: null, cpuSeconds: null };
    return { running: false, paused: false, bootedAt: null, limits, usage };
  }
  const disk = await imageUsage(diskPath(init)).catch(() => undefined);
  const live = (await init.cgroup?.usage()) ?? { memoryBytes: null, pids: null, cpuSeconds: null };
  return {
    running: true,
    paused,
    bootedAt: init.bootedAt,
    limits,
    usage: { ...live, diskBytes: disk?.used ?? null },
  };
}

/** The smallest size the VM's disk can shrink to (what it holds, and its file system's own). */
export function smallestDisk(host: MachineHost, vm: VmSpec): Promise<number> {
  return minimumImageSize(host.tools, vm.diskDir);
}

/** Resizes the image of a stopped VM. */
export async function resizeStoppedDisk(
  host: MachineHost,
  vm: VmSpec,
  bytes: number,
): Promise<void> {
  await resizeImageOffline(host.tools, vm.diskDir, bytes);
}

// The image's mount, as seen through the launcher's own mount namespace.
function diskPath(init: MachineInit): string {
  return `/proc/${init.launcherPid}/root${init.mountPoint}`;
}

/** The running VM's disk as the disk watchdog measures it (`diskDir`: resolved). */
export function mountedDisk(diskDir: string, init: MachineInit): MountedDisk {
  return { key: diskDir, mountPath: diskPath(init), image: join(diskDir, IMAGE_NAME) };
}

// The runtime folder must be reachable by the VMs' ids (0711): their mount points are there.
export async function prepareRunDir(runDir: string): Promise<void> {
  await mkdir(runDir, { recursive: true });
  await chmod(runDir, 0o711);
}
