// Small but real command definitions shaped like SPEC §3's, registered in a real registry.
// Every command records what it did in deps.log, so tests can prove what ran and what did not.
import { helpCommand } from '../../../../src/service/commands/help.js';
import { CommandRegistry } from '../../../../src/service/dispatch/registry.js';
import type {
  CommandDefinition,
  CommandInput,
  CommandOutput,
  Principal,
} from '../../../../src/service/dispatch/types.js';

export interface TestDeps {
  log: string[];
}

/** The JSON every echoing command answers: what it received. */
function echo(path: string, deps: TestDeps, input: CommandInput): CommandOutput {
  deps.log.push(path);
  return { kind: 'json', data: { ran: path, flags: input.flags.toJSON(), args: input.args } };
}

type Shape = Omit<CommandDefinition<TestDeps>, 'run' | 'mutates' | 'examples'> &
  Partial<Pick<CommandDefinition<TestDeps>, 'mutates' | 'examples'>>;

function echoing(shape: Shape): CommandDefinition<TestDeps> {
  return {
    mutates: false,
    examples: [],
    ...shape,
    async run(ctx, input) {
      return echo(shape.path, ctx.deps, input);
    },
  };
}

export const lsCommand = echoing({
  path: 'ls',
  description: 'List your VMs',
  usage: 'ls [-l] [pattern]',
  flags: [{ name: 'long', short: 'l', type: 'boolean', description: 'Show every field' }],
  args: [{ name: 'pattern', required: false }],
  examples: ['ls', 'ls -l "web*"'],
});

export const newCommand = echoing({
  path: 'new',
  description: 'Create a VM',
  usage: 'new [--name N] [--tag T]... [--comment C] [--size S]',
  mutates: true,
  flags: [
    { name: 'name', short: 'n', type: 'string', description: 'Name of the VM' },
    { name: 'tag', type: 'string[]', commaList: true, description: 'A tag, repeatable' },
    { name: 'comment', type: 'string', description: 'A comment' },
    { name: 'size', type: 'string', default: 'small', description: 'Machine size' },
    { name: 'env', type: 'string[]', default: ['LANG=C'], description: 'K=V, repeatable' },
  ],
  args: [],
  examples: ['new --name web --tag prod'],
});

export const rmCommand = echoing({
  path: 'rm',
  description: 'Delete VMs',
  usage: 'rm <vm>...',
  mutates: true,
  flags: [],
  args: [{ name: 'vm', required: true, variadic: true }],
});

export const renameCommand = echoing({
  path: 'rename',
  description: 'Rename a VM',
  usage: 'rename <vm> <new>',
  mutates: true,
  flags: [],
  args: [
    { name: 'vm', required: true },
    { name: 'new', required: true },
  ],
});

/** Streams one line naming what would run, and exits with the length of the command. */
export const sshCommand: CommandDefinition<TestDeps> = {
  path: 'ssh',
  description: 'Run a command in a VM',
  usage: 'ssh <vm> <command...>',
  mutates: true,
  flags: [],
  args: [
    { name: 'vm', required: true },
    { name: 'command', required: true, variadic: true, raw: true },
  ],
  examples: ['ssh web uname -a'],
  async run(ctx, input) {
    const [vm, ...command] = input.args;
    ctx.deps.log.push(`ssh ${vm}`);
    return {
      kind: 'stream',
      vm: 'test',
      async start(sink) {
        await sink.write(Buffer.from(`${vm}$ ${command.join(' ')}\n`));
        return { exitCode: command.length };
      },
    };
  },
};

export const whoamiCommand = echoing({
  path: 'whoami',
  description: 'Show who you are',
  usage: 'whoami',
  flags: [],
  args: [],
});

export const sshKeyGroup = { path: 'ssh-key', description: 'Manage your SSH keys' };

export const sshKeyList = echoing({
  path: 'ssh-key list',
  description: 'List your SSH keys',
  usage: 'ssh-key list',
  flags: [],
  args: [],
});

export const sshKeyAdd = echoing({
  path: 'ssh-key add',
  description: 'Register a public key',
  usage: 'ssh-key add [--name N] <public-key>',
  mutates: true,
  flags: [{ name: 'name', type: 'string', description: 'A name for the key' }],
  args: [{ name: 'public-key', required: true }],
});

export const teamCommand = echoing({
  path: 'team',
  description: 'Show your team',
  usage: 'team',
  flags: [],
  args: [],
});

export const teamMembers = echoing({
  path: 'team members',
  description: 'List the members of your team',
  usage: 'team members',
  flags: [],
  args: [],
});

/** Waits until its signal aborts, then records the reason's message; never settles itself. */
export const waitCommand: CommandDefinition<TestDeps> = {
  path: 'wait',
  description: 'Wait for the deadline',
  usage: 'wait',
  mutates: false,
  flags: [],
  args: [],
  examples: [],
  run(ctx) {
    ctx.deps.log.push('wait started');
    return new Promise((_, reject) => {
      ctx.signal.addEventListener('abort', () => {
        ctx.deps.log.push(`aborted: ${(ctx.signal.reason as Error).message}`);
        reject(ctx.signal.reason);
      });
    });
  },
};

/** A bug in a command: a plain Error, which must reach the front end unchanged. */
export const boomCommand: CommandDefinition<TestDeps> = {
  path: 'boom',
  description: 'Fail unexpectedly',
  usage: 'boom',
  mutates: false,
  flags: [],
  args: [],
  examples: [],
  async run() {
    throw new TypeError('kaboom');
  },
};

/** A registry holding every fixture, help first, registered the way the service will. */
export function testRegistry(): CommandRegistry<TestDeps> {
  const registry = new CommandRegistry<TestDeps>();
  registry.register(helpCommand);
  for (const def of [lsCommand, newCommand, rmCommand, renameCommand, sshCommand, whoamiCommand]) {
    registry.register(def);
  }
  registry.registerGroup(sshKeyGroup);
  registry.register(sshKeyList);
  registry.register(sshKeyAdd);
  registry.register(teamCommand);
  registry.register(teamMembers);
  registry.register(waitCommand);
  registry.register(boomCommand);
  return registry;
}

export function principal(cmds: readonly string[] | null): Principal {
  return {
    accountId: 1,
    email: 'ada@example.com',
    userId: 'u_1',
    keyFingerprint: 'SHA256:abc',
    cmds,
    tag: null,
    exp: null,
    via: cmds === null ? 'ssh' : 'token',
  };
}
