import { commandFailed } from '../../errors.js';
import type { InteractiveOutput, StreamOutput, Terminal } from '../dispatch/types.js';
import type { VmRecord } from '../store/index.js';
import type { ServiceCommand, ServiceContext } from './shared/command.js';
import { findVisibleVm } from './shared/vm-access.js';

/**
 * `ssh <vm> [command...]` — with a command, runs `/bin/sh -c "<the remaining words joined by
 * spaces>"` inside a VM, as sshd would (SPEC §2, §4). The answer is the raw interleaved output
 * and the exit code, so it is a stream: the front end decides how to carry it (header or
 * trailer over HTTP, the channel's exit status over SSH). Without a command, an interactive
 * shell in the VM on the client's terminal, which only the SSH front end with a pty can give
 * (`ssh -t host ssh web`); elsewhere it is refused with 422. Users the VM is shared with may
 * run commands too.
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
    const vm = findVisibleVm(ctx, name);
    if (words.length === 0) return interactiveShell(ctx, vm);
    const command = words.join(' ');
    const output: StreamOutput = {
      kind: 'stream',
      start: async (sink) => {
        const { exitCode } = await ctx.deps.machines.exec(vm, command, {
          signal: ctx.signal,
          onOutput: (chunk) => sink.write(chunk),
        });
        return { exitCode };
      },
    };
    return output;
  },
};

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
