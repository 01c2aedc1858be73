// The package as a library (SPEC §10), in process: startServer, Client, faults, mint, reset,
// export and stop — against real loopback listeners, a real SQLite file and real VM processes.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, ExecError, decode, startServer, type RunningServer } from '../../../src/index.js';
import { createTempDir } from '../../helpers/tmp.js';

/** Whether something accepts TCP connections at `url`'s port. */
function listening(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The ExecError `promise` rejects with. */
async function execError(promise: Promise<unknown>): Promise<ExecError> {
  const err = await promise.then(
    () => assert.fail('expected an ExecError'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ExecError, String(err));
  return err;
}

describe('two servers in one process', () => {
  let a: RunningServer;
  let b: RunningServer;
  before(async () => {
    [a, b] = await Promise.all([startServer(), startServer({ owner: 'ada@example.com' })]);
  });
  after(async () => {
    await a.stop();
    await b.stop();
  });

  test('listen on their own free ports, with their own folders, owners and keys', async () => {
    const ports = [a.url, b.url, a.reflectionUrl, b.reflectionUrl].map((u) => new URL(u).port);
    ports.push(String(a.sshPort), String(b.sshPort));
    assert.equal(new Set(ports).size, 6, ports.join(' '));
    assert.notEqual(a.dataDir, b.dataDir);
    assert.notEqual(a.ownerKey.fingerprint, b.ownerKey.fingerprint);
    const me = (server: RunningServer) =>
      new Client({ url: server.url, token: '' }).exec('whoami').catch((e: ExecError) => e.status);
    assert.deepEqual([await me(a), await me(b)], [401, 401]);
    const whoami = async (server: RunningServer) =>
      (
        (await new Client({ url: server.url, token: await server.mint() }).exec('whoami')) as {
          email: string;
        }
      ).email;
    assert.deepEqual([await whoami(a), await whoami(b)], ['owner@localhost', 'ada@example.com']);
  });

  test('a VM made on one is not on the other', async () => {
    const onA = new Client({ url: a.url, token: await a.mint() });
    const onB = new Client({ url: b.url, token: await b.mint() });
    await onA.exec('new --name only-a');
    assert.deepEqual(await onB.exec('ls'), { vms: [] });
    assert.equal(((await onA.exec('ls')) as { vms: unknown[] }).vms.length, 1);
  });

  test('a token of one is refused by the other (another owner key)', async () => {
    const err = await execError(new Client({ url: b.url, token: await a.mint() }).exec('whoami'));
    assert.deepEqual([err.status, err.code, err.message], [401, 'unauthorized', 'invalid token']);
  });
});

describe('one server', () => {
  let server: RunningServer;
  let client: Client;
  before(async () => {
    server = await startServer();
    client = new Client({ url: server.url, token: await server.mint() });
    await client.exec('new --name web');
  });
  after(() => server.stop());

  test('exec returns the JSON answer', async () => {
    assert.deepEqual(await client.exec('share show web'), {
      shares: [
        {
          vm_name: 'web',
          visibility: 'private',
          port: 8000,
          url: `http://web.localhost:${new URL(server.url).port}`,
          users: [],
          links: [],
        },
      ],
    });
  });

  test('exec throws ExecError with the status, the catalogue code and the message', async () => {
    const unknown = await execError(client.exec('nope'));
    assert.deepEqual(
      [unknown.status, unknown.code, unknown.message, unknown.body],
      [404, 'unknown_command', 'unknown command: nope', { error: 'unknown command: nope' }],
    );
    const narrow = new Client({ url: server.url, token: await server.mint({ cmds: ['whoami'] }) });
    const forbidden = await execError(narrow.exec('ls'));
    assert.deepEqual([forbidden.status, forbidden.code], [403, 'forbidden']);
    const missing = await execError(client.exec('rm ghost'));
    assert.deepEqual([missing.status, missing.code], [422, 'command_failed']);
  });

  test('ssh returns the exit code and the exact bytes, every byte value included', async () => {
    const every = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const script = `printf '${[...every].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('')}'; exit 7`;
    const result = await client.ssh('web', ['sh', '-c', script]);
    assert.equal(result.exitCode, 7);
    assert.deepEqual(result.output, every);
    const words = await client.ssh('web', ['printf', '%s|', 'a b', "it's", '$HOME', '*']);
    assert.deepEqual(words, { exitCode: 0, output: Buffer.from("a b|it's|$HOME|*|") });
  });

  test('a Client with the key mints a token per command', async () => {
    const keyed = new Client({ url: server.url, key: server.ownerKey.privateKeyPath });
    assert.equal(((await keyed.exec('ls')) as { vms: unknown[] }).vms.length, 1);
  });

  test('mint: every command by default, an hour long; the cmds and ctx asked for', async () => {
    const now = Math.floor(Date.now() / 1000);
    const all = decode(await server.mint()).permissions;
    assert.ok(all.exp! >= now + 3599 && all.exp! <= now + 3601);
    assert.ok(all.cmds!.includes('rm') && all.cmds!.includes('ssh'));
    const narrow = decode(await server.mint({ cmds: ['ls'], ctx: { run: 1 } })).permissions;
    assert.deepEqual([narrow.cmds, narrow.ctxRaw], [['ls'], '{"run":1}']);
    const vmToken = decode(await server.mint({}, { vm: 'web' }));
    assert.equal(vmToken.signature.namespace, 'v0@web.localhost');
  });

  test('faults.add fails exactly `times` matching calls, and only those', async () => {
    server.faults.add({ command: 'whoami', status: 503, times: 2 });
    const statuses: (number | 'ok')[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push(
        await client.exec('whoami').then(
          () => 'ok' as const,
          (e: ExecError) => e.status,
        ),
      );
      // Another command is never affected.
      await client.exec('ls');
    }
    assert.deepEqual(statuses, [503, 503, 'ok']);
  });

  test('a fault carries its message; one with a delay waits; clear removes them', async () => {
    server.faults.add({ command: 'ls', status: 429, message: 'slow down' });
    const err = await execError(client.exec('ls'));
    assert.deepEqual([err.status, err.code, err.message], [429, 'rate_limited', 'slow down']);
    server.faults.clear();
    await client.exec('ls');
    server.faults.add({ command: '*', delayMs: 300, times: 1 });
    const started = performance.now();
    await client.exec('whoami');
    assert.ok(performance.now() - started >= 290);
    server.faults.add({ command: 'ls', status: 503, probability: 0 });
    await client.exec('ls');
    server.faults.clear();
  });

  test('a status the service never answers is refused at add', () => {
    assert.throws(() => server.faults.add({ command: 'ls', status: 418 }), {
      message: /^fault status 418 is not one of 400, 401, .*503, 504, 508$/,
    });
  });

  test('a command that is no command path (a typo would never fail a call) is refused at add', () => {
    for (const command of ['whoam', 'ssh-key', 'ssh web', '']) {
      assert.throws(() => server.faults.add({ command, status: 503 }), {
        message: `fault command "${command}" is not a command path (such as "whoami" or "ssh-key list") or "*"`,
      });
    }
    server.faults.add({ command: 'ssh-key list', status: 503, times: 1 });
    server.faults.clear();
  });

  test('export gives the state as a seed document', () => {
    const seed = server.export();
    const owner = seed.accounts[0] as { email: string; vms: { name: string }[] };
    assert.equal(owner.email, 'owner@localhost');
    assert.deepEqual(
      owner.vms.map((vm) => vm.name),
      ['web'],
    );
  });
});

test('reset empties the folder and bootstraps the owner again on the same ports', async () => {
  const server = await startServer();
  try {
    const client = new Client({ url: server.url, key: server.ownerKey.privateKeyPath });
    await client.exec('new --name web');
    const url = server.url;
    await server.reset();
    assert.equal(server.url, url);
    assert.deepEqual(await client.exec('ls'), { vms: [] });
  } finally {
    await server.stop();
  }
});

/** Host pids of the processes whose command line is exactly `argv`. */
function processesRunning(argv: readonly string[]): number[] {
  const wanted = `${argv.join('\0')}\0`;
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === wanted;
      } catch {
        return false; // ended meanwhile
      }
    })
    .map(Number);
}

/** `whoami`'s email for a token of `server.mint()`. */
async function mintedEmail(server: RunningServer): Promise<string> {
  const client = new Client({ url: server.url, token: await server.mint() });
  return ((await client.exec('whoami')) as { email: string }).email;
}

test('mint works whatever the folder holds: with a seed, and on a kept folder started again', async () => {
  const seeded = await startServer({
    owner: 'ada@example.com',
    seed: { accounts: [{ email: 'bob@example.com', vms: [{ name: 'from-seed' }] }] },
  });
  try {
    assert.equal(await mintedEmail(seeded), 'ada@example.com');
    assert.deepEqual(
      seeded.export().accounts.map((a) => (a as { email: string }).email),
      ['bob@example.com', 'ada@example.com'],
    );
  } finally {
    await seeded.stop();
  }

  const dir = await createTempDir('lib-kept');
  try {
    const data = dir.join('data');
    const first = await startServer({ data });
    await new Client({ url: first.url, token: await first.mint() }).exec('new --name kept');
    await first.stop();
    // A new start makes a new key pair: the owner account gets it beside the first one.
    const again = await startServer({ data });
    try {
      assert.equal(await mintedEmail(again), 'owner@localhost');
      const client = new Client({ url: again.url, token: await again.mint() });
      assert.deepEqual(
        ((await client.exec('ls')) as { vms: { vm_name: string }[] }).vms.map((v) => v.vm_name),
        ['kept'],
      );
    } finally {
      await again.stop();
    }
  } finally {
    await dir.remove();
  }
});

test('a second server on the data folder of a running one is refused, in one process too', async () => {
  const first = await startServer();
  try {
    await assert.rejects(startServer({ data: first.dataDir }), {
      code: 'cannot_start',
      message: `data folder ${first.dataDir} is in use by pid ${process.pid}`,
    });
    const client = new Client({ url: first.url, token: await first.mint() });
    assert.deepEqual(await client.exec('ls'), { vms: [] });
  } finally {
    await first.stop();
  }
});

test('stop leaves no process, port or folder behind', async () => {
  const server = await startServer();
  const client = new Client({ url: server.url, token: await server.mint() });
  await client.exec('new --name web');
  // A VM sees its own pid namespace: the process is found by its unique command line.
  const sleeper = ['sleep', `${300 + Math.random()}`.slice(0, 12)];
  await client.ssh('web', ['sh', '-c', `${sleeper.join(' ')} >/dev/null 2>&1 &`]);
  assert.equal(processesRunning(sleeper).length, 1, 'the background process runs');
  const urls = [server.url, server.reflectionUrl, `http://127.0.0.1:${server.sshPort}`];
  // The VMs' run folder (sockets, the client's bin) lives in the temporary folder, recorded in
  // the data folder (src/service/vm/fleet/run-folder.ts): there while the server runs.
  const runDir = readFileSync(join(server.dataDir, 'run-folder'), 'utf8').trim();
  assert.ok(runDir.startsWith(join(tmpdir(), 'exectl-run-')) && existsSync(runDir), runDir);
  const folders = [server.dataDir, join(server.ownerKey.privateKeyPath, '..'), runDir];

  await server.stop();
  assert.deepEqual(processesRunning(sleeper), []);
  assert.deepEqual(await Promise.all(urls.map(listening)), [false, false, false]);
  assert.deepEqual(folders.filter(existsSync), []);
});

test('only the library makes a fault table: no flag and no command reaches one', () => {
  const uses = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return uses(path);
      return /new FaultTable\(/.test(readFileSync(path, 'utf8')) ? [path] : [];
    });
  assert.deepEqual(uses('src'), ['src/library/start-server.ts']);
});

test('allowPrivateTargets lets integrations reach a stub on 127.0.0.1, in seeds too', async () => {
  const add = 'integrations add http-proxy --name stub --target http://127.0.0.1:9/api';
  const strict = await startServer();
  try {
    const client = new Client({ url: strict.url, token: await strict.mint() });
    const err = await execError(client.exec(add));
    assert.equal(err.status, 422);
    assert.match(err.message, /exectl serve --allow-private-targets allows that/);
  } finally {
    await strict.stop();
  }
  const seed = {
    accounts: [
      {
        email: 'owner@localhost',
        integrations: [{ name: 'seeded', type: 'llm', target: 'http://localhost:9' }],
      },
    ],
  };
  await assert.rejects(startServer({ seed }), /allow-private-targets/);
  const open = await startServer({ allowPrivateTargets: true, seed });
  try {
    const client = new Client({ url: open.url, token: await open.mint() });
    assert.equal(((await client.exec(add)) as { target: string }).target, 'http://127.0.0.1:9/api');
  } finally {
    await open.stop();
  }
});

test('compat: "exe.dev" speaks the real service names; its mint signs for v0@exe.dev', async () => {
  await assert.rejects(
    startServer({ compat: 'aws' as 'exe.dev' }),
    /^ExectlError: startServer option compat: expected exe\.dev$/,
  );
  const server = await startServer({ compat: 'exe.dev' });
  try {
    const svc0 = await server.mint({ cmds: ['whoami', 'exe0-to-exe1'] });
    assert.equal(decode(svc0).signature.namespace, 'v0@exe.dev');
    const exe0 = `exe0.${svc0.slice(5)}`;
    const client = new Client({ url: server.url, token: exe0 });
    assert.deepEqual(Object.keys((await client.exec('whoami')) as object).sort(), [
      'email',
      'region',
      'region_display',
      'ssh_keys',
      'user_id',
    ]);
    const { token } = (await client.exec(`exe0-to-exe1 ${exe0}`)) as { token: string };
    assert.match(token, /^exe1\./);
    const vmToken = await server.mint({}, { vm: 'web' });
    assert.equal(decode(vmToken).signature.namespace, 'v0@web.exe.xyz');
  } finally {
    await server.stop();
  }
});

test('maxVmsPerAccount: a whole number at least 1; the limit holds for the owner', async () => {
  await assert.rejects(
    startServer({ maxVmsPerAccount: 0 }),
    /^ExectlError: startServer option maxVmsPerAccount: expected a whole number of VMs, at least 1$/,
  );
  const server = await startServer({ maxVmsPerAccount: 1 });
  try {
    const client = new Client({ url: server.url, token: await server.mint() });
    await client.exec('new --name only-one');
    await assert.rejects(client.exec('new --name one-too-many'), /--max-vms-per-account 1/);
  } finally {
    await server.stop();
  }
});
