// Booting a VM as a machine of its own (the server runs as root): a private range of host ids,
// a fixed-size disk image, cgroup limits, and a network namespace of its own (vm/network/). One
// launcher process does every step (machine/launcher-argv.ts); this follows it through its pipes.
import { readlinkSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import type { VmCgroup } from '../cgroups/index.js';
import { DEFAULT_PATH, spawnHost } from '../process/index.js';
import { IMAGE_NAME, LAYOUT_MARKER } from '../disk/index.js';
import { launcherArgv, LAUNCHER_FD, NETWORK_FIRST_FD } from './launcher-argv.js';
import { clientMountArgs, type ClientMounts } from '../sandbox/index.js';
import { scriptText } from '../scripts/index.js';
import { INFO_FD, joinCgroupsFirst, machineBwrapArgs } from '../sandbox/index.js';
import type { MachineTools } from './machine-host.js';
import { MachineNetwork, SlirpLink, type InboundListener } from '../network/index.js';
import { watchInit, type VmInit } from '../sandbox/index.js';

/** What a machine VM needs to boot. */
interface MachineBoot {
  hostname: string;
  diskDir: string;
  idBase: number;
  cgroup: VmCgroup | null;
  /** The server's listeners, shown inside at their host addresses. */
  inbound: readonly InboundListener[];
  /** An empty folder the VM's ids can reach, where the image is mounted for the VM. */
  mountPoint: string;
  /** The VM's own folder of the run folder: its root file system is assembled there. */
  vmRunDir: string;
  /** The base system below the VM's root (base-system.ts). */
  baseSystem: string;
  /** The host's system folders shown copy-on-write (`usr`, and real `bin`, `lib*`…). */
  systemFolders: readonly string[];
  /** The exectl client's read-only mounts. */
  client: ClientMounts;
  /** The first host id owning `baseSystem`'s files when it is an image's (else null). */
  lowerIds: number | null;
  /** The init's service words (an image's command), or none. */
  service: readonly string[];
}

/** A running machine VM: its init, plus what `stat`, `resize` and the proxy reach. */
export interface MachineInit extends VmInit {
  /** The host pid of the launcher: its mount namespace holds the disk image's mount. */
  readonly launcherPid: number;
  /** Where the disk image is mounted in the launcher's mount namespace. */
  readonly mountPoint: string;
  /** When the VM booted (ms since the epoch). */
  readonly bootedAt: number;
  readonly cgroup: VmCgroup | null;
  readonly network: MachineNetwork;
}

/** Boots the VM; rejects with the first step's own message when it cannot. */
export async function startMachineInit(
  tools: MachineTools,
  boot: MachineBoot,
): Promise<MachineInit> {
  // The network starts as soon as the namespaces exist, and is up alongside the init.
  // Its helpers (slirp4netns, started by the launcher once it joined the VM's cgroups, and the
  // door's) run inside the VM's limits: their CPU and memory are the VM's.
  const procsFiles = boot.cgroup?.procsFiles ?? [];
  const network = new MachineNetwork(
    new SlirpLink(tools, boot.idBase),
    tools.nsenter,
    tools.perl,
    tools.ip,
    procsFiles.length === 0 ? [] : joinCgroupsFirst(procsFiles),
  );
  const argv = launcherArgv(
    {
      image: join(boot.diskDir, IMAGE_NAME),
      mountPoint: boot.mountPoint,
      idBase: boot.idBase,
      unshare: tools.unshare,
      perl: tools.perl,
      rootProgram: scriptText('machine-root.pl'),
      layoutMarker: join(boot.diskDir, LAYOUT_MARKER),
      baseSystem: boot.baseSystem,
      vmRunDir: boot.vmRunDir,
      systemFolders: boot.systemFolders.join(' '),
      lowerIds: boot.lowerIds,
    },
    procsFiles,
    network.launcher,
    [
      tools.nsenter,
      '--user',
      '--net',
      '--',
      tools.bwrap,
      ...machineBwrapArgs(
        boot.hostname,
        join(boot.vmRunDir, 'root'),
        clientMountArgs(boot.client),
        boot.service,
      ),
    ],
  );
  const child = spawnHost(argv[0]!, argv.slice(1), {
    cwd: '/',
    env: { PATH: DEFAULT_PATH },
    detached: true,
    stdio: Array<'ignore' | 'pipe'>(NETWORK_FIRST_FD + network.launcher.pipes)
      .fill('pipe')
      .fill('ignore', 0, 1),
  });
  // (Node types five stdio entries; the launcher has more pipes.)
  const pipe = (fd: number) => (child.stdio as readonly unknown[])[fd] as Socket;
  const networkPipes = Array.from({ length: network.launcher.pipes }, (_, i) =>
    pipe(NETWORK_FIRST_FD + i),
  );
  const launched = holderPid(pipe(LAUNCHER_FD.launched));
  const networkUp = launched.then((holder) => network.attach(holder, networkPipes, boot.inbound));
  // Awaited below; a launcher that fails early rejects it before anything awaits it.
  networkUp.catch(() => {});
  let init: VmInit;
  try {
    init = await watchInit(child, boot.hostname, child.stdio[INFO_FD] as Readable);
  } catch (err) {
    await networkUp.catch(() => {});
    network.stop();
    throw err;
  }
  const machine: MachineInit = {
    ...init,
    launcherPid: child.pid!,
    mountPoint: boot.mountPoint,
    bootedAt: Date.now(),
    cgroup: boot.cgroup,
    network,
    alive: () => init.alive(),
    stop: async () => {
      network.stop();
      await init.stop();
      await boot.cgroup?.remove();
    },
  };
  try {
    await networkUp;
  } catch (err) {
    await machine.stop();
    throw err;
  }
  endHolder(await launched, init.pid);
  return machine;
}

// The holder (machine/launcher-argv.ts) is needed only until bwrap has joined its namespaces, which
// it has once the init runs; left to its 60 s, it would outlive a VM stopped sooner. It is
// ended only while it still shares the init's user namespace: never a process that took the
// pid of a holder that ended on its own.
function endHolder(holder: number, init: number): void {
  const userNamespace = (pid: number) => {
    try {
      return readlinkSync(`/proc/${pid}/ns/user`);
    } catch {
      return undefined;
    }
  };
  const ns = userNamespace(holder);
  if (ns === undefined || ns !== userNamespace(init)) return;
  try {
    process.kill(holder, 'SIGKILL');
  } catch {
    // It ended a moment ago.
  }
}

// The holder's pid, which the launcher writes once the VM's namespaces exist; rejects when it
// ends first.
function holderPid(stream: Readable): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    stream.on('end', () => {
      const pid = Number(text.trim());
      if (Number.isInteger(pid) && pid > 1) resolve(pid);
      else reject(new Error('the VM did not start'));
    });
    stream.on('error', reject);
  });
}
