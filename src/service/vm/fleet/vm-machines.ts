// The VM runtime as the commands see it (contract.ts `VmMachines`): stored VM records in, the
// runtime's disks and sandboxes out.
import { join, resolve } from 'node:path';
import { commandFailed } from '../../../errors.js';
import type { ServiceConfig } from '../../config.js';
import { checkCeilings, fitCeilings, resolveCeilings } from '../../rules/ceilings.js';
import type { Store, VmRecord } from '../../store/index.js';
import type { VmExecOptions, VmListeners, VmMachines, VmsListener } from '../contract.js';
import { createRuntime } from '../runtime-choice/index.js';
import { detectRuntime } from '../runtime-choice/index.js';
import { makeRunFolder, removeRunFolder } from './run-folder.js';
import { imageFootprint } from '../disk/index.js';
import { DiskWatchdog } from '../disk/index.js';
import { SetupJobs } from './setup-jobs.js';
import { bootRunningVms, failInterruptedCreations } from './boot-at-start.js';
import type { DetectedRuntime, ExecOptions, ExecResult, VmRef, VmSpec } from '../runtime.js';
import { GATEWAY_ADDRESS, type InboundListener } from '../network/index.js';
import { OpenSessions } from './open-sessions.js';
import { runtimeSession } from './runtime-session.js';
import { deliverIntoMaildir } from './mail-delivery.js';
import { closing, pausedError } from './vm-refusals.js';
import { ImagePulls } from './image-pulls.js';
import { untilOrLate, LATE } from './until-or-late.js';

/**
 * The server listeners that machine VMs see inside: at their host addresses, and the email
 * gateway at its link-local one (network/link-local.ts).
 */
type InboundName = 'http' | 'reflection' | 'gateway';

/** The VM machinery of a running service. */
export interface RunningVmMachines extends VmMachines {
  /** The runtime in use, and why when `auto` fell back to the unisolated one. */
  readonly runtime: DetectedRuntime;
  exec(vm: VmRecord, command: string, options: VmExecOptions): Promise<ExecResult>;
  /**
   * Shows the listener `name` inside every machine VM booted from now on, at its host address
   * (`endpoints`): it is handed each connection a VM opens there, with the VM and its account.
   * VMs that share the host's network reach it directly.
   */
  acceptFromVms(name: InboundName, listener: VmsListener): void;
  /** Server start, before any listener: each VM left `creating` by a stopped server is `failed`. */
  recoverCreations(): void;
  /**
   * Server start, once listening: boots every VM stored as `running` (rc.local runs in each);
   * one that cannot boot is marked `stopped` and named in one log line. Never rejects.
   */
  bootRunning(): Promise<void>;
  /** Kills every VM process (server exit); setup scripts still running leave their VM `failed`. */
  shutdown(): Promise<void>;
}

/** What the VM machinery is given by the service. */
export interface VmMachinesDeps {
  config: ServiceConfig;
  store: Store;
  /** The listeners machine VMs reach at their host addresses. */
  endpoints: VmListeners;
  /**
   * The VM's `EXECTL_REFLECTION_URL`, asked at each command: the reflection listener's address
   * is known only once it listens.
   */
  reflectionUrl(vm: VmRecord): string;
}

/**
 * Chooses the runtime for `config.runtime` (ExectlError `usage` when bwrap is demanded but
 * cannot run) and serves stored VMs with it. A VM's disk is `<data>/vms/<id>`; its commands and
 * shells get `EXECTL_REFLECTION_URL` from `reflectionUrl`.
 */
export async function startVmMachines({
  config,
  store,
  endpoints,
  reflectionUrl,
}: VmMachinesDeps): Promise<RunningVmMachines> {
  const runDir = await makeRunFolder(config.dataDir);
  const listeners = new Map<InboundName, VmsListener>();
  // Resolved disk folder -> VM id, for the runtime's reports (onStateChange) and the origin of
  // the connections a VM opens.
  const idOfDisk = new Map<string, number>();
  const inbound = (vm: VmRef): InboundListener[] =>
    [...listeners].flatMap(([name, listener]) => {
      const at = name === 'gateway' ? GATEWAY_ADDRESS : hostAddress(endpoints[name]);
      if (at === undefined) return [];
      // Asked at each boot: a VM keeps its owner for as long as it runs.
      const vmId = idOfDisk.get(resolve(vm.diskDir)) ?? -1;
      const origin = { vmId, accountId: store.getVm(vmId)?.accountId ?? -1 };
      return [{ ...at, accept: (socket) => listener.accept(socket, origin) }];
    });
  const detected = await detectRuntime(config.runtime, { runDir, inbound });
  const runtime = createRuntime(detected.kind, detected.mode);
  const pulls = ImagePulls.open(store, config.dataDir, detected, config.registries ?? {});
  const imageCache = join(config.dataDir, 'images');
  const spec = (vm: VmRecord): VmSpec => {
    const diskDir = join(config.dataDir, 'vms', String(vm.id));
    idOfDisk.set(resolve(diskDir), vm.id);
    const digest = vm.image?.digest ?? null;
    const image =
      digest === null ? undefined : { cacheRoot: imageCache, digest, command: vm.image!.command };
    return { name: vm.name, diskDir, env: vm.env, limits: vm.limits, image };
  };
  // The stored status follows the VM's processes (SPEC §4: always true). A VM being created,
  // or whose setup failed, keeps that status; `pause`, `restart` and `rm` set theirs themselves.
  runtime.onStateChange((diskDir, state) => {
    const id = idOfDisk.get(diskDir);
    if (id === undefined) return;
    try {
      if (state === 'running') store.setStatusIf(id, ['stopped'], 'running');
      else store.setStatusIf(id, ['running', 'paused'], 'stopped');
    } catch (err) {
      config.log(`vm ${id}: could not store that it is ${state}: ${String(err)}`, 'error');
    }
  });
  // SPEC §7: the data folder's free space stays above a floor; VMs' writes are capped first.
  const watchdog = new DiskWatchdog(
    config.dataDir,
    () => runtime.mountedDisks(),
    (line) => config.log(line, 'warn'),
    config.diskFloorBytes,
  );
  // A VM that just booted is capped at once, not at the next measure.
  runtime.onStateChange((_, state) => void (state === 'running' && watchdog.measure()));
  const ceilings = resolveCeilings(config.vmCeilings ?? {}, config.dataDir);
  // A new VM (new, seed) gets the default limits within the ceilings, stored before its disk
  // and cgroup are made with them; a seed's own limit above a ceiling is refused.
  const withinCeilings = (vm: VmRecord): VmRecord => {
    const fitted = fitCeilings(vm.limits, ceilings);
    return JSON.stringify(fitted) === JSON.stringify(vm.limits)
      ? vm
      : store.setLimits(vm.id, fitted);
  };
  const jobs = new SetupJobs(store, runtime.setupLog, config.setupDeadlineMs);
  const stopping = new AbortController();
  let booting: Promise<void> = Promise.resolve();
  // A new VM boots at once but is not waited for: `new` answers sooner, and a command or `stat`
  // meanwhile waits for that same boot. One that fails is `stopped` (the runtime reports it).
  const bootInBackground = (vm: VmRecord) =>
    void runtime.boot(spec(vm)).catch((err: unknown) => {
      const why = err instanceof Error ? err.message : String(err);
      config.log(`vm "${vm.name}" did not boot, it is stopped: ${why.split('\n')[0]}`, 'warn');
    });
  const reflection = (vm: VmRecord) => ({ EXECTL_REFLECTION_URL: reflectionUrl(vm) });
  const sessions = new OpenSessions();
  // The disk, the boot and the setup script of a new VM whose image (if any) is pulled.
  const finishCreation = async (vm: VmRecord, signal: AbortSignal, waitUntil: number) => {
    await runtime.create(spec(vm), { signal });
    if (vm.setupScript === null || vm.setupScript === '') {
      bootInBackground(vm);
      return store.setSetup(vm.id, { status: 'none', lastLine: null }, 'running');
    }
    const exec = (command: string, options: ExecOptions) =>
      runtime.exec(spec(vm), command, { ...options, env: reflection(vm) });
    return jobs.start(vm, exec, waitUntil - Date.now());
  };
  // A creation that failed after `new` answered: the VM stays, `failed`, with the cause in `stat`.
  const failCreation = (vm: VmRecord, err: unknown) => {
    const why = err instanceof Error ? err.message : String(err);
    config.log(`vm "${vm.name}" could not be created: ${why}`, 'warn');
    try {
      store.setSetup(vm.id, { status: 'failed', lastLine: why.slice(0, 200) }, 'failed');
    } catch {
      // Removed meanwhile.
    }
  };
  /** Why `vm` takes no command, shell or session now: paused, or being removed or restarted. */
  const refusalOf = (vm: VmRecord) =>
    vm.status === 'paused' ? pausedError(vm) : sessions.refusal(vm.id);

  const machines: RunningVmMachines = {
    runtime: detected,
    acceptFromVms: (name, listener) => void listeners.set(name, listener),
    async create(given, signal) {
      const vm = withinCeilings(given);
      await watchdog.assertRoom('create a VM');
      await runtime.create(spec(vm), { setupScript: vm.setupScript, env: reflection(vm), signal });
      bootInBackground(vm);
      const ran = vm.setupScript !== null && vm.setupScript !== '';
      store.setSetup(vm.id, { status: ran ? 'done' : 'none', lastLine: null }, 'running');
    },
    async createInBackground(given, signal, waitUntil, credentials = null) {
      const vm = withinCeilings(given);
      await watchdog.assertRoom('create a VM');
      if (vm.image === null || vm.image.digest !== null)
        return finishCreation(vm, signal, waitUntil);
      // A long pull answers `creating` at `waitUntil` and goes on (SPEC §4a: the 25 s rule).
      const pulled = pulls.pull(vm, credentials, stopping.signal);
      const early = await untilOrLate(pulled, waitUntil);
      if (early !== LATE) return finishCreation(early, signal, waitUntil);
      void pulled
        .then((made) => finishCreation(made, stopping.signal, Date.now()))
        .catch((err: unknown) => failCreation(vm, err));
      return store.getVm(vm.id) ?? vm;
    },
    async copy(from, to) {
      const need = await imageFootprint(spec(from).diskDir);
      const release = await watchdog.assertRoom(`copy vm "${from.name}"`, need);
      try {
        await runtime.copy(spec(from), spec(to));
      } finally {
        release();
      }
      bootInBackground(to);
    },
    async restart(vm) {
      await sessions.closeDuring(vm.id, closing(vm, 'restarted', 'restarting'), () =>
        runtime.restart(spec(vm)),
      );
      store.setStatus(vm.id, 'running');
    },
    async remove(vm) {
      await sessions.closeDuring(vm.id, closing(vm, 'removed', 'being removed'), async () => {
        pulls.stop(vm.id);
        await jobs.stop(vm.id, 'the VM was removed');
        await runtime.remove(spec(vm));
      });
    },
    async exec(vm, command, options) {
      const refusal = refusalOf(vm);
      if (refusal !== undefined) throw refusal;
      return runtime.exec(spec(vm), command, { ...options, env: reflection(vm) });
    },
    shell(vm, options) {
      const refusal = refusalOf(vm);
      if (refusal === undefined)
        return runtime.shell(spec(vm), { ...options, env: reflection(vm) });
      const exited = Promise.reject(refusal);
      exited.catch(() => {});
      return { resize: () => {}, exited };
    },
    session(vm, options) {
      const refusal = refusalOf(vm);
      if (refusal !== undefined) {
        const exited = Promise.reject(refusal);
        exited.catch(() => {});
        return { resize: () => {}, exited };
      }
      return runtimeSession(runtime, spec(vm), sessions, vm.id, {
        ...options,
        env: { ...options.env, ...reflection(vm) },
      });
    },
    async stat(vm) {
      const state = await runtime.stat(spec(vm));
      const note = watchdog.note(resolve(spec(vm).diskDir));
      return note === null ? state : { ...state, diskNote: note };
    },
    async resize(vm, limits) {
      checkCeilings(limits, vm.limits, ceilings);
      if (limits.diskBytes > vm.limits.diskBytes) {
        await watchdog.assertRoom(`grow the disk of vm "${vm.name}"`);
      }
      const refused = runtime.cannot('resize');
      if (refused !== null) throw commandFailed(refused);
      await runtime.resize({ ...spec(vm), limits });
      store.setLimits(vm.id, limits);
    },
    async pause(vm, frozen) {
      const refused = runtime.cannot('pause');
      if (refused !== null) throw commandFailed(refused);
      await runtime.pause(spec(vm), frozen);
      store.setStatus(vm.id, frozen ? 'paused' : 'running');
    },
    connect(vm, port) {
      // A connection starts a VM that is not running: never one that rm is taking away.
      const refusal = sessions.refusal(vm.id);
      return refusal === undefined ? runtime.connect(spec(vm), port) : Promise.reject(refusal);
    },
    recoverCreations: () => failInterruptedCreations(store, config.log),
    bootRunning() {
      booting = bootRunningVms(store, (vm) => runtime.boot(spec(vm)), config.log, stopping.signal);
      return booting;
    },
    async shutdown() {
      stopping.abort();
      await watchdog.stop();
      await jobs.stopAll('the server stopped during the setup script');
      await runtime.shutdown();
      await booting;
      await removeRunFolder(config.dataDir, runDir);
    },
    deliverMail: (vm, message) =>
      deliverIntoMaildir((options) => machines.session(vm, options), message),
  };
  return machines;
}

/** Where a listener of the server listens on the host, from its base URL ('' while it does not). */
function hostAddress(url: string): { host: string; port: number } | undefined {
  if (url === '') return undefined;
  const { hostname, port } = new URL(url);
  return { host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) };
}
