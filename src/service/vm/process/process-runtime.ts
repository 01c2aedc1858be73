// The runtime without isolation: a VM is a folder, and its commands are plain child processes
// of the server running in it (cwd and HOME = the folder). The server says so loudly at start.
//
// A VM's processes are found again, for restart/remove/shutdown, two ways: every command is a
// session leader, and the sessions that still have members are remembered; and a process
// whose working folder is inside the VM's folder belongs to the VM (this catches background
// processes that left their session with `setsid`, unless they also left the folder).
import type { MountedDisk } from '../disk/index.js';
import { userInfo } from 'node:os';
import { resolve, sep } from 'node:path';
import { commandEnv } from './command-env.js';
import { createVm } from '../setup/index.js';
import { copyFolderDisk } from '../disk/index.js';
import { assertDiskExists, createDisk, removeDisk } from '../disk/index.js';
import { groupAlive, killUntilGone } from './kill-tree.js';
import { processCwd } from './proc-table.js';
import { runCommand, shellArgv } from './run-command.js';
import { findShellTools, shellCommand, shellEnv } from './shell-command.js';
import { startShellSession } from './shell-session.js';
import type { Socket } from 'node:net';
import { startPipeSession } from './pipe-session.js';
import { pipeCommand, terminalProgram } from './session-command.js';
import type { TerminalProgram } from './shell-command.js';
import type { VmState } from '../contract.js';
import { connectLoopback } from '../network/index.js';
import type {
  CreateOptions,
  ExecOptions,
  ExecResult,
  RuntimeCapability,
  SessionOptions,
  ShellOptions,
  ShellSession,
  VmRef,
  VmRuntime,
  VmSpec,
} from '../runtime.js';
import { commandFailed } from '../../../errors.js';

export class ProcessRuntime implements VmRuntime {
  readonly kind = 'process';
  // No root file system of its own: the log is in the VM's folder ($HOME).
  readonly setupLog = '';
  // Resolved disk folder -> session ids of its commands that may still have processes.
  private readonly sessions = new Map<string, Set<number>>();
  private readonly user = currentUserName();
  private closed = false;

  async create(vm: VmSpec, options: CreateOptions = {}): Promise<void> {
    await createVm(this, vm, options, this.setupLog, () => createDisk(vm.diskDir));
  }

  // A VM here has no processes of its own between commands, so no state ever changes by
  // itself, and there is nothing to boot (no init, hence no /etc/rc.local of its own).
  onStateChange(): void {}

  async boot(vm: VmSpec): Promise<void> {
    await assertDiskExists(resolve(vm.diskDir));
  }

  async copy(from: VmSpec, to: VmSpec): Promise<void> {
    await assertDiskExists(resolve(from.diskDir));
    await copyFolderDisk(resolve(from.diskDir), resolve(to.diskDir));
  }

  async exec(vm: VmSpec, command: string, options: ExecOptions = {}): Promise<ExecResult> {
    options.signal?.throwIfAborted();
    if (this.closed) throw new Error('the VM runtime is shut down');
    const diskDir = resolve(vm.diskDir);
    await assertDiskExists(diskDir);
    const env = commandEnv({ HOME: diskDir, USER: this.user }, vm.env, options.env);
    const outcome = await runCommand({ argv: shellArgv(command), env, cwd: diskDir }, options);
    this.remember(diskDir, outcome.sessionId);
    const { exitCode, signal, aborted } = outcome;
    return signal === undefined ? { exitCode, aborted } : { exitCode, signal, aborted };
  }

  shell(vm: VmSpec, options: ShellOptions): ShellSession {
    return this.terminal(vm, options);
  }

  session(vm: VmSpec, options: SessionOptions): ShellSession {
    const { pty, program } = options;
    if (pty !== undefined) return this.terminal(vm, { ...options, pty }, terminalProgram(program));
    return startPipeSession(async () => {
      if (this.closed) throw new Error('the VM runtime is shut down');
      const diskDir = resolve(vm.diskDir);
      await assertDiskExists(diskDir);
      const env = commandEnv({ HOME: diskDir, USER: this.user }, vm.env, options.env);
      // fd 3 is for launchers that keep their own stderr apart; here there is none.
      const argv: [string, ...string[]] = ['/bin/sh', '-c', 'exec 3>&-; exec /bin/sh -c "$1"'];
      return {
        launch: { argv: [...argv, 'sh', pipeCommand(program)], env, cwd: diskDir },
        stderrFd: 2,
        onStart: (pid) => this.remember(diskDir, pid),
        launchFailed: (errors) => new Error(`could not start in vm "${vm.name}": ${errors}`),
      };
    }, options);
  }

  // A shell, or an SSH session's program, on a terminal of its own.
  private terminal(vm: VmSpec, options: ShellOptions, program?: TerminalProgram): ShellSession {
    return startShellSession(async () => {
      if (this.closed) throw new Error('the VM runtime is shut down');
      const tools = findShellTools();
      const diskDir = resolve(vm.diskDir);
      await assertDiskExists(diskDir);
      const callEnv = { ...shellEnv(options.pty), ...options.env };
      const env = commandEnv({ HOME: diskDir, USER: this.user }, vm.env, callEnv);
      return {
        launch: { argv: shellArgv(shellCommand(tools, options.pty, program)), env, cwd: diskDir },
        resizeTty: async (tty, size) => {
          const argv: [string, ...string[]] = [tools.stty, '-F', tty, 'cols', `${size.cols}`];
          argv.push('rows', `${size.rows}`);
          const outcome = await runCommand({ argv, env: {}, cwd: '/' }, {});
          if (outcome.exitCode !== 0) throw new Error(`stty ended with ${outcome.exitCode}`);
        },
        // `script` gave the shell a session of its own: it is the VM's too (restart, remove).
        onReport: (report, launcherPid) => {
          this.remember(diskDir, launcherPid);
          this.remember(diskDir, report.pid);
        },
        launchFailed: (errors) =>
          new Error(`could not start a shell in vm "${vm.name}": ${errors}`),
      };
    }, options);
  }

  async restart(vm: VmRef): Promise<void> {
    await this.killVm(resolve(vm.diskDir));
  }

  async remove(vm: VmRef): Promise<void> {
    await this.killVm(resolve(vm.diskDir));
    await removeDisk(vm.diskDir);
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.sessions.keys()].map((diskDir) => this.killVm(diskDir)));
  }

  // No machine here: a VM is a folder, with no limits and no life of its own beyond commands.
  async stat(): Promise<VmState> {
    const limits = { cpus: null, memoryBytes: null, pids: null, diskBytes: null };
    const usage = { memoryBytes: null, pids: null, diskBytes: null, cpuSeconds: null };
    return { running: true, paused: false, bootedAt: null, limits, usage };
  }

  cannot(what: RuntimeCapability): string | null {
    return what === 'resize'
      ? 'resize needs the bwrap runtime with the server running as root'
      : 'pause and resume need the bwrap runtime with the server running as root';
  }

  async resize(): Promise<void> {
    throw commandFailed(this.cannot('resize')!);
  }

  async pause(): Promise<void> {
    throw commandFailed(this.cannot('pause')!);
  }

  // The VM shares the host's network.
  connect(_vm: VmSpec, port: number): Promise<Socket> {
    return connectLoopback(port);
  }

  // Its disks are folders of the data folder itself: no image to cap (admission only).
  async mountedDisks(): Promise<MountedDisk[]> {
    return [];
  }

  // Keeps the sessions that still have a process group (a cheap probe), so the set stays as
  // small as the VM's live background work.
  private remember(diskDir: string, sessionId: number): void {
    const known = this.sessions.get(diskDir) ?? new Set<number>();
    known.add(sessionId);
    for (const sid of known) if (!groupAlive(sid)) known.delete(sid);
    this.sessions.set(diskDir, known);
  }

  private async killVm(diskDir: string): Promise<void> {
    const sessions = this.sessions.get(diskDir) ?? new Set<number>();
    this.sessions.delete(diskDir);
    await killUntilGone(async (processes) => {
      const inVm = await Promise.all(
        processes.map(
          async (p) => sessions.has(p.session) || isInside(await processCwd(p.pid), diskDir),
        ),
      );
      return processes.filter((_, i) => inVm[i]).map((p) => p.pid);
    });
  }
}

function isInside(path: string | undefined, folder: string): boolean {
  return path !== undefined && (path === folder || path.startsWith(folder + sep));
}

// USER for commands. A uid without a passwd entry (containers run with arbitrary ids) has no
// name: the number stands in, as `id -un` would fail and shells show it.
function currentUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return String(process.getuid?.() ?? '');
  }
}
