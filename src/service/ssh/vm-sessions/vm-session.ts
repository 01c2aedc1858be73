// The SSH server of every VM (SPEC §6a): a connection whose user name is `vm+<name>`, or that
// came to the VM's own address, gets sessions inside that VM, as OpenSSH's sshd gives them, with root as the user inside.
import { performance } from 'node:perf_hooks';
import type { Connection, ServerChannel, Session } from 'ssh2';
import { ExectlError } from '../../../errors.js';
import type { VmSessionProgram } from '../../vm/contract.js';
import type { VmRecord } from '../../store/index.js';
import { logRequest, newRequestId } from '../../request-log.js';
import { guardChannel } from '../channel-guard.js';
import { finishChannel } from '../channel-sink.js';
import { forwardIntoVm } from './vm-forward.js';
import { sessionEnv } from './session-env.js';
import type { VmTarget } from './vm-target.js';
import type { SessionContext } from '../session-context.js';
import type { PtyRequest } from '../shell-terminal.js';

/** Sessions one connection may have open at once, as sshd's MaxSessions. */
const MAX_SESSIONS = 10;
/** Local forwardings (`-L` connections) open or opening at once on one connection. */
const MAX_FORWARDS = 32;

/** The user name prefix that names a VM: `vm+web` is the VM `web`. */
export const VM_USER_PREFIX = 'vm+';

/**
 * Serves the sessions and local forwardings of a connection to the VM `target`. Access is
 * checked at each session (the key may have been removed, the VM shared or unshared since):
 * a refusal is one line on the session's stderr and exit status 1, the same line for a VM
 * that does not exist and one the key may not use. Remote forwarding, agent and X11
 * forwarding, and subsystems other than `sftp` are refused (ssh2 refuses what has no handler).
 */
export function serveVmSessions(client: Connection, ctx: SessionContext, target: VmTarget): void {
  let open = 0;
  client.on('session', (accept, reject) => {
    if (open >= MAX_SESSIONS) return reject();
    open += 1;
    const session = accept();
    session.once('close', () => (open -= 1));
    serveSession(session, ctx, target);
  });
  // Forwardings are capped as sessions are: each channel holds up to ssh2's window (2 MiB) of
  // the client's data while the VM's side does not read.
  let forwarding = 0;
  const closed = new AbortController();
  client.once('close', () => closed.abort());
  const connection = { closed: closed.signal, ended: () => (forwarding -= 1) };
  client.on('tcpip', (accept, reject, info) => {
    if (forwarding >= MAX_FORWARDS) return reject();
    forwarding += 1;
    forwardIntoVm(ctx, target, info, accept, reject, connection);
  });
}

function serveSession(session: Session, ctx: SessionContext, target: VmTarget): void {
  let pty: PtyRequest | undefined;
  const env = sessionEnv();
  let started = false;
  let resize: ((cols: number, rows: number) => void) | undefined;
  let wanted: PtyRequest | undefined;

  session.on('pty', (acceptPty, rejectPty, info) => {
    if (started) return rejectPty?.();
    pty = { cols: info.cols, rows: info.rows, term: info.term };
    acceptPty?.();
  });
  session.on('window-change', (acceptChange, _reject, info) => {
    acceptChange?.();
    if (pty === undefined) return;
    wanted = { ...pty, cols: info.cols, rows: info.rows };
    resize?.(info.cols, info.rows);
  });
  session.on('env', (acceptEnv, rejectEnv, info) => {
    if (!started && env.take(info.key, info.val)) acceptEnv?.();
    else rejectEnv?.();
  });
  const begin = (channel: ServerChannel, program: VmSessionProgram): void => {
    started = true;
    guardChannel(channel, ctx.wire);
    const term = wanted ?? pty;
    resize = runSession(channel, ctx, target, program, term, env.values());
  };
  session.on('exec', (acceptExec, rejectExec, info) => {
    if (started) return rejectExec?.();
    begin(acceptExec(), { kind: 'exec', command: info.command });
  });
  session.on('shell', (acceptShell, rejectShell) => {
    if (started) return rejectShell?.();
    begin(acceptShell(), { kind: 'shell' });
  });
  session.on('subsystem', (acceptSub, rejectSub, info) => {
    if (started || info.name !== 'sftp') return rejectSub?.();
    begin(acceptSub(), { kind: 'sftp' });
  });
}

/** Runs one session's program in the VM; returns how to resize its terminal. */
function runSession(
  channel: ServerChannel,
  ctx: SessionContext,
  target: VmTarget,
  program: VmSessionProgram,
  pty: PtyRequest | undefined,
  env: Record<string, string>,
): (cols: number, rows: number) => void {
  const started = performance.now();
  const hangUp = new AbortController();
  channel.once('close', () => hangUp.abort(new Error('the client went away')));
  let vm: VmRecord | undefined;
  const finish = (status: number, exit: number | string | null, detail?: string): void => {
    logRequest(ctx.env.log, {
      requestId: newRequestId(),
      via: 'ssh',
      fingerprint: ctx.fingerprint,
      path: target.path,
      status,
      durationMs: performance.now() - started,
      session: { vm: vm?.name ?? target.label, kind: program.kind, exit },
      ...(detail === undefined ? {} : { detail }),
    });
  };
  try {
    vm = target.open(ctx);
  } catch (err) {
    refuse(channel, err, finish);
    return () => {};
  }
  const session = ctx.env.deps.machines.session(vm, {
    program,
    ...(pty === undefined ? {} : { pty }),
    env,
    signal: AbortSignal.any([hangUp.signal, ctx.shutdown]),
    input: channel,
    output: channel,
    errors: pty === undefined ? channel.stderr : channel,
  });
  ctx.track(
    session.exited.then(
      ({ exitCode, signal }) => {
        finishChannel(channel, signal === undefined ? exitCode : { signal });
        finish(200, signal ?? exitCode);
      },
      (err: unknown) => refuse(channel, err, finish),
    ),
  );
  return (cols, rows) => session.resize(cols, rows);
}

/**
 * Ends a session that could not run: one line on stderr and exit status 1 (SPEC §6a). An
 * ExectlError says what happened in its message; anything else is the server's fault, logged
 * for the operator and told the client without details.
 */
function refuse(
  channel: ServerChannel,
  err: unknown,
  finish: (status: number, exit: null, detail?: string) => void,
): void {
  const known = err instanceof ExectlError;
  const line = known ? err.message : 'the session could not start inside the VM';
  if (!channel.destroyed && !channel.writableEnded) {
    channel.stderr.write(`${line}\n`);
    channel.exit(1);
    channel.end();
  }
  if (known) finish(err.status, null);
  else finish(500, null, err instanceof Error ? err.message : String(err));
}
