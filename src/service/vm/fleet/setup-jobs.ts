// The setup scripts that run in the background (SPEC §4): `new` answers when a script ends or
// after 25 s, the script goes on for at most 15 minutes, and its outcome lands in the store
// (`running`, or `failed` with the last line of its output).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store, VmRecord, VmSetup, VmStatus } from '../../store/index.js';
import { StoreConflictError } from '../../store/index.js';
import { runSetupScript, shortLine } from '../setup/index.js';
import type { ExecOptions, ExecResult } from '../runtime.js';

/** How long a setup script may run before it is killed and its VM marked `failed`. */
const SETUP_DEADLINE_MS = 15 * 60_000;

/** Runs a command in one VM (the runtime's exec, with the VM's call env). */
type VmExec = (command: string, options: ExecOptions) => Promise<ExecResult>;

interface Job {
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

/** The setup scripts running now, by VM id. */
export class SetupJobs {
  private readonly jobs = new Map<number, Job>();

  constructor(
    private readonly store: Store,
    private readonly setupLog: string,
    private readonly deadlineMs: number = SETUP_DEADLINE_MS,
  ) {}

  /**
   * Starts `vm`'s setup script through `exec` and resolves with the record once it ended or
   * `waitMs` passed (then still `creating`), whichever is first.
   */
  async start(vm: VmRecord, exec: VmExec, waitMs: number): Promise<VmRecord> {
    const controller = new AbortController();
    const done = this.run(vm, exec, controller).finally(() => this.jobs.delete(vm.id));
    this.jobs.set(vm.id, { controller, done });
    const waited = new AbortController();
    await Promise.race([
      done,
      sleep(Math.max(0, waitMs), undefined, { signal: waited.signal }).catch(() => {}),
    ]);
    waited.abort();
    return this.store.getVm(vm.id) ?? vm;
  }

  /** Kills the VM's setup script, if one runs, and waits until its outcome is stored. */
  async stop(vmId: number, why: string): Promise<void> {
    const job = this.jobs.get(vmId);
    job?.controller.abort(new Error(why));
    await job?.done;
  }

  /** Kills every setup script (server stopping): their VMs are left `failed`. */
  async stopAll(why: string): Promise<void> {
    await Promise.all([...this.jobs.keys()].map((id) => this.stop(id, why)));
  }

  private async run(vm: VmRecord, exec: VmExec, controller: AbortController): Promise<void> {
    const ms = this.deadlineMs;
    const limit = ms % 60_000 === 0 ? `${ms / 60_000} minutes` : `${ms / 1000} s`;
    const timer = setTimeout(
      () => controller.abort(new Error(`setup script killed after ${limit}`)),
      ms,
    );
    try {
      const outcome = await runSetupScript(exec, vm.setupScript ?? '', this.setupLog, {
        signal: controller.signal,
      });
      if (outcome.aborted) this.finish(vm, failed(reasonOf(controller.signal)), 'failed');
      else if (outcome.exitCode === 0)
        this.finish(vm, { status: 'done', lastLine: null }, 'running');
      else this.finish(vm, failed(outcome.lastLine ?? `exit code ${outcome.exitCode}`), 'failed');
    } catch (err) {
      // The VM could not be entered (its boot failed, the runtime is shut down).
      this.finish(vm, failed(err instanceof Error ? err.message : String(err)), 'failed');
    } finally {
      clearTimeout(timer);
    }
  }

  private finish(vm: VmRecord, setup: VmSetup, status: VmStatus): void {
    try {
      this.store.setSetup(vm.id, setup, status);
    } catch (err) {
      // Removed meanwhile (`rm` stops the script first, then deletes the record).
      if (!(err instanceof StoreConflictError)) throw err;
    }
  }
}

function failed(lastLine: string): VmSetup {
  return { status: 'failed', lastLine: shortLine(lastLine) };
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : String(reason);
}
