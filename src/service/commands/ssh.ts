import { commandFailed } from '../../errors.js';
import type { InteractiveOutput, ProgramPipes, StreamOutput, Terminal } from '../dispatch/types.js';
import type { VmRecord } from '../store/index.js';
import type { ServiceCommand, ServiceContext } from './shared/command.js';
import { findSshableVm } from './shared/vm-access.js';

/**
 * `ssh <vm> [command...]` — with a command, runs `/bin/sh -c "<the remaining words joined by
 * spaces>"` inside a VM, as sshd would (SPEC §2, §4). The answer is the raw interleaved output
 * and the exit code, so it is a stream: the front end decides how to carry it (header or
 * trailer over HTTP, the channel's exit status over SSH). Without a command, an interactive
 * shell in the VM on the client's terminal, which only the SSH front end with a pty can give
 * (`ssh -t host ssh web`); elsewhere it is refused with 422. Users the VM is shared with may
 * run commands too. The SSH lobby's exec without a pty (`ssh host ssh web 'cat > f' < f`) runs
 * the same command as an SSH session into the VM would (`piped`): stdin forwarded, stderr
 * apart, no deadline.
 */
export const sshCommand: ServiceCommand = {
  path: 'ssh',
  description:
    'Run a command inside one of your VMs (raw output, its exit code); alone, a shell (ssh -t)',
  usage: 'ssh <vm> [command...]',
  flags: [],
  args: [
    { name: 'vm', required: true },
    { name: 'command', required: false, variadic: true, raw: true },
  ],
  examples: [
    'ssh web uname -a',
    "ssh web 'ls -la /root | head'",
    'ssh web -- ls --help',
    // Over SSH with a pty (`ssh -t`) only.
    'ssh web',
  ],
  mutates: true,
  async run(ctx, input) {
    const [name = '', ...words] = input.args;
    const vm = findSshableVm(ctx, name);
    if (words.length === 0) return interactiveShell(ctx, vm);
    const command = words.join(' ');
    const output: StreamOutput = {
      kind: 'stream',
      vm: vm.name,
      start: async (sink) => {
        const { exitCode } = await ctx.deps.machines.exec(vm, command, {
          signal: ctx.signal,
          onOutput: (chunk) => sink.write(chunk),
        });
        return { exitCode };
      },
      piped: (pipes) => pipedSession(ctx, vm, command, pipes),
    };
    return output;
  },
};

/**
 * `command` as the exec of an SSH session into the VM (`vm+<name>`, SPEC §6a): the same
 * `/bin/sh -c` text, with the client's stdin, stdout and stderr apart, the exit status or the
 * signal, and no deadline; `rm` and `restart` end it. A paused VM refuses it (422).
 */
async function pipedSession(
  ctx: ServiceContext,
  vm: VmRecord,
  command: string,
  pipes: ProgramPipes,
): Promise<{ exitCode: number; signal?: string }> {
  const { input, output, errors, signal } = pipes;
  const session = ctx.deps.machines.session(vm, {
    program: { kind: 'exec', command },
    input,
    output,
    errors,
    signal,
  });
  const { exitCode, signal: ender, aborted } = await session.exited;
  // Hung up by the front end: its reason (client gone, interrupted, shutdown) says what
  // happened. Ended by `rm` or `restart`, it reports how the command ended, as a session does.
  if (aborted && signal.aborted) throw signal.reason;
  return ender === undefined ? { exitCode } : { exitCode, signal: ender };
}

function interactiveShell(ctx: ServiceContext, vm: VmRecord): InteractiveOutput {
  return {
    kind: 'interactive',
    refusal: commandFailed(`ssh ${vm.name} needs a terminal: give a command, or use ssh -t`),
    start(terminal: Terminal) {
      const { cols, rows, term, input, output, signal } = terminal;
      const shell = ctx.deps.machines.shell(vm, {
        pty: { cols, rows, term },
        input,
        output,
        signal,
      });
      return {
        resize: (c, r) => shell.resize(c, r),
        exited: shell.exited.then(({ exitCode, aborted }) => {
          // Hung up by the front end: its reason (client gone, shutdown) says what happened.
          if (aborted) throw signal.reason;
          return { exitCode };
        }),
      };
    },
  };
}
