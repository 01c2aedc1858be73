import type { StreamOutput } from '../dispatch/types.js';
import type { ServiceCommand } from './shared/command.js';
import { findVisibleVm } from './shared/vm-access.js';

/**
 * `ssh <vm> <command...>` — runs `/bin/sh -c "<the remaining words joined by spaces>"` inside
 * a VM, as sshd would (SPEC §2, §4). The answer is the raw interleaved output and the exit
 * code, so it is a stream: the front end decides how to carry it (header or trailer over
 * HTTP, the channel's exit status over SSH). Users the VM is shared with may run commands too.
 */
export const sshCommand: ServiceCommand = {
  path: 'ssh',
  description: 'Run a command inside one of your VMs (raw output, its exit code)',
  usage: 'ssh <vm> <command...>',
  flags: [],
  args: [
    { name: 'vm', required: true },
    { name: 'command', required: true, variadic: true, raw: true },
  ],
  examples: ['ssh web uname -a', "ssh web 'ls -la /root | head'", 'ssh web -- ls --help'],
  mutates: true,
  async run(ctx, input) {
    const [name = '', ...words] = input.args;
    const vm = findVisibleVm(ctx, name);
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
