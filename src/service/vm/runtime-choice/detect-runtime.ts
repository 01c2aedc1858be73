// Choosing the runtime at server start: bwrap when a real test sandbox starts and answers, as
// machines (own ids, network, disk, limits) when the server is root.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExectlError } from '../../../errors.js';
import { bwrapRuntime } from './create-runtime.js';
import { clientMounts, ensureBaseSystem, hostSystem } from '../sandbox/index.js';
import { detectCgroups } from '../cgroups/index.js';
import { DEFAULT_PATH } from '../process/index.js';
import { DEFAULT_REGISTRY } from '../id-ranges.js';
import { findMachineTools, prepareRunDir } from '../machine/index.js';
import {
  findBwrapTools,
  serverIsRoot,
  type BwrapTools,
  type SandboxMode,
} from '../sandbox/index.js';
import { DEFAULT_VM_LIMITS } from '../contract.js';
import type { DetectedRuntime, RuntimeChoice, VmRef } from '../runtime.js';
import { loadNetworkWall, type InboundListener } from '../network/index.js';
import { ImageTemplates } from '../disk/index.js';

const PROBE_TIMEOUT_MS = 10_000;
const PROBE_DISK_BYTES = 32 * 1024 ** 2;

/** What machine VMs need from the server. */
export interface MachineOptions {
  /** The server's own folder for VM mount points (made 0711 here). */
  runDir: string;
  /** The server's listeners to show inside the VM `vm`. */
  inbound(vm: VmRef): readonly InboundListener[];
  /** The host-wide id-range claims (a test may use its own). */
  registry?: string;
  /** Where the host-wide base-system snapshots live (a test may use its own). */
  baseSystemRoot?: string;
}

/**
 * Which runtime to use for `--runtime choice`. `auto`: bwrap when a test VM, made exactly as
 * real ones are, starts and runs `true`; otherwise process, with the reason (the server prints
 * it loudly). `bwrap` that cannot run throws ExectlError `usage` with the reason. `process`
 * is taken as asked, without a probe. `warnings` name each guarantee of SPEC §4 this host
 * cannot give (printed once at start).
 */
export async function detectRuntime(
  choice: RuntimeChoice,
  machine: MachineOptions,
): Promise<DetectedRuntime> {
  if (choice === 'process') return { kind: 'process', mode: { kind: 'user' }, warnings: [] };
  const found = await detectSandboxMode(machine);
  const problem = 'problem' in found ? found.problem : await bwrapProblem(found.tools, found.mode);
  if (problem === undefined && !('problem' in found)) {
    return { kind: 'bwrap', mode: found.mode, warnings: found.warnings };
  }
  if (choice === 'bwrap') {
    throw new ExectlError('cannot_start', `the bwrap runtime cannot run here: ${problem}`, {
      hint: 'install bubblewrap (as root also slirp4netns, e2fsprogs), or choose --runtime process',
    });
  }
  return {
    kind: 'process',
    mode: { kind: 'user' },
    warnings: [],
    reason: `isolated VMs cannot run here (${problem}); VM commands run as plain processes, without isolation`,
  };
}

/**
 * What a one-id sandbox lacks of a machine VM, each named at start so that a user meets none of
 * them first as a puzzling failure (test/integration/vm/unprivileged-server.test.ts proves them).
 */
const USER_MODE_WARNINGS = [
  "the server is not root, so VMs share the host network: a server in a VM on 0.0.0.0:8000 listens on the host's port 8000",
  'the server is not root, so system folders in VMs are read-only: no /srv, and apt-get cannot install',
  'the server is not root, so each VM has a single id: chown fails, and rsync -a exits 23 (use rsync -rlt)',
  'the server is not root, so VMs have no CPU, memory or process limits (run as root for machine VMs)',
];

/**
 * How bwrap VMs run on this host: machines when the server is root (their tools found, the
 * cgroups detected and the run folder made), a one-id sandbox otherwise; or why they cannot.
 * `warnings` name the guarantees of SPEC §4 that this host cannot give.
 */
export async function detectSandboxMode(
  machine: MachineOptions,
): Promise<{ tools: BwrapTools; mode: SandboxMode; warnings: string[] } | { problem: string }> {
  if (!serverIsRoot()) {
    const tools = findBwrapTools();
    if ('missing' in tools) return { problem: `${tools.missing} was not found in ${DEFAULT_PATH}` };
    return {
      tools,
      mode: { kind: 'user', client: await clientMounts(machine.runDir) },
      warnings: [...USER_MODE_WARNINGS],
    };
  }
  const tools = findMachineTools();
  if ('missing' in tools) return { problem: `${tools.missing} was not found in ${DEFAULT_PATH}` };
  const cgroups = await detectCgroups();
  const warnings =
    'problem' in cgroups ? [`VMs have no CPU, memory or process limits: ${cgroups.problem}`] : [];
  // Before any VM's network is up, the probe VM's included.
  const wall = await loadNetworkWall();
  if (wall !== undefined) warnings.push(wall);
  await prepareRunDir(machine.runDir);
  const system = hostSystem();
  const [baseSystem, client] = await Promise.all([
    ensureBaseSystem(system, machine.baseSystemRoot),
    clientMounts(machine.runDir),
  ]);
  const mode: SandboxMode = {
    kind: 'machine',
    tools,
    cgroups: 'problem' in cgroups ? null : cgroups,
    runDir: machine.runDir,
    registry: machine.registry ?? DEFAULT_REGISTRY,
    inbound: machine.inbound,
    baseSystem,
    systemFolders: system.folders,
    client,
    images: new ImageTemplates(tools),
  };
  return { tools, mode, warnings };
}

/** Why bwrap VMs cannot run here, or undefined when a test VM works. */
async function bwrapProblem(tools: BwrapTools, mode: SandboxMode): Promise<string | undefined> {
  const dir = await mkdtemp(join(tmpdir(), 'exectl-probe-'));
  const runtime = bwrapRuntime(tools, mode);
  const limits = { ...DEFAULT_VM_LIMITS, diskBytes: PROBE_DISK_BYTES };
  const vm = { name: 'probe', diskDir: join(dir, 'disk'), env: {}, limits };
  try {
    await runtime.create(vm);
    const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
    const result = await runtime.exec(vm, 'true', { signal });
    if (result.aborted) return `a test VM did not answer within ${PROBE_TIMEOUT_MS / 1000}s`;
    if (result.exitCode !== 0) return `a test VM ended with exit code ${result.exitCode}`;
    return undefined;
  } catch (err) {
    return err instanceof Error ? (err.message.split('\n')[0] ?? err.message) : String(err);
  } finally {
    await runtime.remove(vm).catch(() => {});
    await runtime.shutdown();
    await rm(dir, { recursive: true, force: true });
  }
}
