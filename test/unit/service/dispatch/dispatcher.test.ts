import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExectlError } from '../../../../src/errors.js';
import { dispatch, type DispatchResult } from '../../../../src/service/dispatch/dispatcher.js';
import { timeoutMessage } from '../../../../src/service/dispatch/deadline.js';
import { stopWhenAborted } from '../../../../src/service/dispatch/stop.js';
import { renderJson } from '../../../../src/service/dispatch/render.js';
import type { CommandRegistry } from '../../../../src/service/dispatch/registry.js';
import type { CommandDefinition, StreamOutput } from '../../../../src/service/dispatch/types.js';
import { principal, testRegistry, type TestDeps } from './fixtures.js';

interface Run {
  deps: TestDeps;
  resolved: string[];
  result: Promise<DispatchResult>;
}

function run(
  line: string,
  cmds: readonly string[] | null,
  options: { deadlineMs?: number; signal?: AbortSignal; registry?: CommandRegistry<TestDeps> } = {},
): Run {
  const deps: TestDeps = { log: [] };
  const resolved: string[] = [];
  const result = dispatch(options.registry ?? testRegistry(), line, principal(cmds), deps, {
    deadlineMs: options.deadlineMs ?? 30_000,
    requestId: 'req-1',
    ...(options.signal === undefined ? {} : { stopWhen: stopWhenAborted(options.signal) }),
    onResolved: (path) => resolved.push(path),
  });
  return { deps, resolved, result };
}

async function jsonOf(line: string, cmds: readonly string[] | null): Promise<string> {
  const { output } = await run(line, cmds).result;
  assert.equal(output.kind, 'json');
  return renderJson(output.data);
}

const FAILURES: [line: string, cmds: readonly string[] | null, status: number, message: string][] =
  [
    // 400 comes before everything, even for a token that allows nothing.
    ['', [], 400, 'missing command'],
    [' \t\n', [], 400, 'missing command'],
    [`frob 'x`, [], 400, 'invalid command syntax: unterminated single quote'],
    [`ls "x`, ['ls'], 400, 'invalid command syntax: unterminated double quote'],
    ['ls \\', ['ls'], 400, 'invalid command syntax: trailing backslash'],
    // 404 before 403.
    ['frob', [], 404, 'unknown command: frob'],
    ['ssh-key', null, 404, 'unknown command: ssh-key'],
    ['ssh-key frob --help', null, 404, 'unknown command: ssh-key frob'],
    // 403 before 422.
    ['ls --frob a b', [], 403, 'command not allowed: ls'],
    ['ssh-key list', ['ssh-key'], 403, 'command not allowed: ssh-key list'],
    ['ssh web ls', ['ssh db'], 403, 'command not allowed: ssh'],
    ['ssh --frob web ls', ['ssh db'], 403, 'command not allowed: ssh'],
    ['ssh', ['ssh web'], 403, 'command not allowed: ssh'],
    // --help needs the command's own permission; a group's needs help.
    ['ls --help', ['help'], 403, 'command not allowed: ls'],
    ['ssh-key --help', ['ssh-key list'], 403, 'command not allowed: help'],
    ['ssh --help', ['ssh web'], 403, 'command not allowed: ssh'],
    // 422 last.
    ['ls --frob', ['ls'], 422, 'unknown flag "--frob"'],
    ['ls a b', null, 422, 'unexpected argument "b"'],
    ['ssh --frob web ls', ['ssh web'], 422, 'unknown flag "--frob"'],
    ['ssh web', ['ssh web'], 422, 'missing argument <command>'],
    ['rm', ['rm'], 422, 'missing argument <vm>'],
    ['help nope', ['help'], 404, 'unknown command: nope'],
  ];

test('dispatch checks in order: 400, 404, 403, 422; nothing runs on failure', async () => {
  for (const [line, cmds, status, message] of FAILURES) {
    const { deps, result } = run(line, cmds);
    await assert.rejects(result, (err: unknown) => {
      assert.ok(err instanceof ExectlError, line);
      assert.equal(err.status, status, line);
      assert.equal(err.message, message, line);
      return true;
    });
    assert.deepEqual(deps.log, [], line);
  }
});

test('the command path is reported once resolved, so failures can be logged with it', async () => {
  const denied = run('ssh-key list --json', []);
  await assert.rejects(denied.result, { message: 'command not allowed: ssh-key list' });
  assert.deepEqual(denied.resolved, ['ssh-key list']);
  const unknown = run('frob', null);
  await assert.rejects(unknown.result, { message: 'unknown command: frob' });
  assert.deepEqual(unknown.resolved, []);
});

test('a command runs with its parsed input and answers its data', async () => {
  const { deps, result } = run(`ls -l 'web*' --json`, ['ls']);
  const { path, output, json } = await result;
  assert.equal(path, 'ls');
  assert.equal(json, true);
  assert.deepEqual(output, {
    kind: 'json',
    data: { ran: 'ls', flags: { long: true }, args: ['web*'] },
  });
  assert.deepEqual(deps.log, ['ls']);
});

test('--json is reported so SSH can choose JSON or text; textRenderer is the path view', async () => {
  const plain = await run('ssh-key list', null).result;
  assert.equal(plain.json, false);
  assert.equal(
    plain.textRenderer?.({ ssh_keys: [] }, undefined),
    'no ssh keys\n',
    'the shared view',
  );
  // `ssh` has no view in src/text-views/ (its answer is a stream, already text).
  assert.equal((await run('ssh web ls', null).result).textRenderer, undefined);
});

test('the view sees the boolean flags it reads: ls -l shows the long columns', async () => {
  const vm = {
    vm_name: 'web',
    emoji: '🦦',
    status: 'running',
    tags: [],
    comment: '',
    default_port: 8080,
    https_url: 'https://web.example',
    ssh_dest: null,
    ssh_host: null,
    ssh_port: null,
    ssh_user: null,
    created_at: '2026-01-01T00:00:00Z',
  };
  const short = await run('ls', null).result;
  const long = await run('ls -l', null).result;
  assert.equal(
    short.textRenderer?.({ vms: [vm] }, undefined),
    'NAME    STATUS   TAGS  URL\n🦦 web  running  -     https://web.example\n',
  );
  assert.equal(
    long.textRenderer?.({ vms: [vm] }, undefined).split('\n')[0],
    'NAME    STATUS   TAGS  URL                  COMMENT  PORT  SSH  REGION  CREATED',
  );
});

test('--help answers the help JSON, runs nothing, and needs the command permission', async () => {
  const { deps, result } = run('new --name web --help', ['new']);
  const answer = await result;
  assert.equal(answer.path, 'new');
  assert.equal(
    renderJson(answer.output.kind === 'json' ? answer.output.data : undefined),
    '{"name":"new","usage":"new [--name N] [--tag T]... [--comment C] [--size S]",' +
      '"description":"Create a VM","flags":[' +
      '{"name":"--name","type":"string","default":null,"description":"Name of the VM"},' +
      '{"name":"--tag","type":"string[]","default":[],"description":"A tag, repeatable"},' +
      '{"name":"--comment","type":"string","default":null,"description":"A comment"},' +
      '{"name":"--size","type":"string","default":"small","description":"Machine size"},' +
      '{"name":"--env","type":"string[]","default":["LANG=C"],"description":"K=V, repeatable"}' +
      '],"examples":["new --name web --tag prod"],"subcommands":[]}\n',
  );
  assert.deepEqual(deps.log, [], 'new must not have run');
  assert.match(
    answer.textRenderer?.(
      answer.output.kind === 'json' ? answer.output.data : undefined,
      undefined,
    ) ?? '',
    /^usage: new \[--name N\]/,
  );
});

test('help <path> gives exactly <path> --help and needs only help', async () => {
  for (const path of ['new', 'ls', 'team', 'ssh-key list', 'ssh-key', 'ssh']) {
    const viaHelp = await jsonOf(`help ${path}`, ['help']);
    const permission = path === 'ssh-key' ? ['help'] : [path];
    assert.equal(await jsonOf(`${path} --help`, permission), viaHelp, path);
  }
});

test('a group answers --help with its subcommands; a parent command lists them too', async () => {
  assert.equal(
    await jsonOf('ssh-key --help', ['help']),
    '{"name":"ssh-key","usage":"ssh-key <subcommand>","description":"Manage your SSH keys",' +
      '"flags":[],"examples":[],"subcommands":[' +
      '{"name":"ssh-key list","usage":"ssh-key list","description":"List your SSH keys"},' +
      '{"name":"ssh-key add","usage":"ssh-key add [--name N] <public-key>",' +
      '"description":"Register a public key"}]}\n',
  );
  assert.equal(
    await jsonOf('team --help', ['team']),
    '{"name":"team","usage":"team","description":"Show your team","flags":[],"examples":[],' +
      '"subcommands":[{"name":"team members","usage":"team members",' +
      '"description":"List the members of your team"}]}\n',
  );
});

test('ssh <vm> <command>: a stream, authorized by VM, its words untouched', async () => {
  const { deps, result } = run('ssh web ls --help -l', ['ssh web']);
  const { path, output } = await result;
  assert.equal(path, 'ssh');
  assert.equal(output.kind, 'stream');
  const chunks: string[] = [];
  const { exitCode } = await (output as StreamOutput).start({
    write: (c) => void chunks.push(c.toString()),
  });
  assert.deepEqual(chunks, ['web$ ls --help -l\n']);
  assert.equal(exitCode, 3);
  assert.deepEqual(deps.log, ['ssh web']);
});

test('an unexpected error from a command propagates unchanged (the funnel makes it a 500)', async () => {
  await assert.rejects(run('boom', null).result, (err: unknown) => {
    assert.ok(err instanceof TypeError);
    assert.equal(err.message, 'kaboom');
    return true;
  });
});

test('the timeout message counts seconds from the deadline', () => {
  assert.equal(timeoutMessage(30_000), 'command timed out after 30s');
  assert.equal(timeoutMessage(1_500), 'command timed out after 1.5s');
  assert.equal(timeoutMessage(100), 'command timed out after 0.1s');
});

test('past the deadline: 504, and the command saw its signal abort with that error', async () => {
  const { deps, result } = run('wait', null, { deadlineMs: 100 });
  await assert.rejects(result, (err: unknown) => {
    assert.ok(err instanceof ExectlError);
    assert.equal(err.code, 'timeout');
    assert.equal(err.status, 504);
    assert.equal(err.message, 'command timed out after 0.1s');
    return true;
  });
  assert.deepEqual(deps.log, ['wait started', 'aborted: command timed out after 0.1s']);
});

test('the front end signal stops a command with its own reason', async () => {
  const clientGone = new AbortController();
  const { deps, result } = run('wait', null, { signal: clientGone.signal });
  clientGone.abort(new Error('client went away'));
  await assert.rejects(result, { message: 'client went away' });
  assert.deepEqual(deps.log, ['wait started', 'aborted: client went away']);

  const already = run('wait', null, { signal: AbortSignal.abort(new Error('shutting down')) });
  await assert.rejects(already.result, { message: 'shutting down' });
  assert.deepEqual(already.deps.log, [], 'an aborted request starts nothing');
});

/** Writes one chunk, waits for its signal, then tries to write once more and exits 0. */
const tailCommand: CommandDefinition<TestDeps> = {
  path: 'tail',
  description: 'Stream until stopped',
  usage: 'tail',
  mutates: false,
  flags: [],
  args: [],
  examples: [],
  async run(ctx) {
    return {
      kind: 'stream',
      vm: 'test',
      start: (sink) =>
        new Promise((resolve) => {
          void sink.write(Buffer.from('first\n'));
          ctx.signal.addEventListener('abort', () => {
            ctx.deps.log.push('tail stopped');
            void sink.write(Buffer.from('after the deadline\n'));
            resolve({ exitCode: 0 });
          });
        }),
    };
  },
};

test('the deadline keeps running while a stream is read, and drops output written after it', async () => {
  const registry = testRegistry();
  registry.register(tailCommand);
  const { deps, result } = run('tail', null, { deadlineMs: 100, registry });
  const { output } = await result;
  const chunks: string[] = [];
  await assert.rejects(
    (output as StreamOutput).start({ write: (c) => void chunks.push(c.toString()) }),
    { name: 'ExectlError', message: 'command timed out after 0.1s' },
  );
  assert.deepEqual(chunks, ['first\n']);
  assert.deepEqual(deps.log, ['tail stopped']);
});

/** A stream whose piped form outlives the deadline (300 ms against 100), saying if it saw it. */
const pipedCommand: CommandDefinition<TestDeps> = {
  path: 'piped',
  description: 'Read stdin past the deadline',
  usage: 'piped',
  mutates: false,
  flags: [],
  args: [],
  examples: [],
  async run(ctx) {
    return {
      kind: 'stream',
      vm: 'test',
      start: () => Promise.resolve({ exitCode: 0 }),
      piped: async (pipes) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        ctx.deps.log.push(`deadline fired: ${ctx.signal.aborted}`);
        ctx.deps.log.push(`front end stopped: ${pipes.signal.aborted}`);
        return { exitCode: 3, signal: 'TERM' };
      },
    };
  },
};

test('a stream taken in its piped form stops the deadline: it ends on the front end’s signal', async () => {
  const registry = testRegistry();
  registry.register(pipedCommand);
  const { deps, result } = run('piped', null, { deadlineMs: 100, registry });
  const { output } = await result;
  const { piped } = output as StreamOutput;
  assert.ok(piped !== undefined);
  const pipes = {
    input: process.stdin,
    output: process.stdout,
    errors: process.stderr,
    signal: new AbortController().signal,
  };
  assert.deepEqual(await piped(pipes), { exitCode: 3, signal: 'TERM' });
  assert.deepEqual(deps.log, ['deadline fired: false', 'front end stopped: false']);
});

/**
 * Never reads `ctx.signal` (so no AbortSignal is ever made for it) and never settles: only the
 * deadline's race can end its dispatch. Counts its runs in `calls.count`.
 */
function ignoringCommand(calls: { count: number }): CommandDefinition<TestDeps> {
  return {
    path: 'ignore',
    description: 'Ignore every reason to stop',
    usage: 'ignore',
    mutates: false,
    flags: [],
    args: [],
    examples: [],
    run: () => {
      calls.count += 1;
      return new Promise(() => {});
    },
  };
}

function ignoringRegistry(calls: { count: number }): CommandRegistry<TestDeps> {
  const registry = testRegistry();
  registry.register(ignoringCommand(calls));
  return registry;
}

test('a command that ignores its signal is still cut off at the deadline: 504', async () => {
  const calls = { count: 0 };
  const { result } = run('ignore', null, { deadlineMs: 100, registry: ignoringRegistry(calls) });
  await assert.rejects(result, (err: unknown) => {
    assert.ok(err instanceof ExectlError);
    assert.equal(err.code, 'timeout');
    assert.equal(err.status, 504);
    assert.equal(err.message, 'command timed out after 0.1s');
    return true;
  });
  assert.equal(calls.count, 1);
});

test('a command that ignores its signal is still stopped by the front end, with its reason', async () => {
  const calls = { count: 0 };
  const clientGone = new AbortController();
  const reason = new Error('client went away');
  const { result } = run('ignore', null, {
    signal: clientGone.signal,
    registry: ignoringRegistry(calls),
  });
  clientGone.abort(reason);
  await assert.rejects(result, (err: unknown) => {
    assert.equal(err, reason, 'rejects with exactly the abort reason');
    return true;
  });
  assert.equal(calls.count, 1);
});

test('a command that ignores its signal is not even started when the stop already held', async () => {
  const calls = { count: 0 };
  const reason = new Error('client went away');
  const { result } = run('ignore', null, {
    signal: AbortSignal.abort(reason),
    registry: ignoringRegistry(calls),
  });
  await assert.rejects(result, (err: unknown) => {
    assert.equal(err, reason);
    return true;
  });
  assert.equal(calls.count, 0, 'run must never be called');
});
