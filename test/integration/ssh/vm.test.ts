// `ssh <vm> <command>` through the SSH front end, on the real VM runtime: output streamed as
// it comes, the VM command's own exit status, Ctrl-C on a running VM command.
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { buildRegistry } from '../../../src/service/commands/index.js';
import { startVmMachines } from '../../../src/service/vm/index.js';
import { startSshHarness, type SshHarness } from './harness.js';
import { PtyClient } from './pty-client.js';

let h: SshHarness;
const clients: PtyClient[] = [];
before(async () => {
  h = await startSshHarness({ registry: buildRegistry(), machines: startVmMachines });
  const made = await h.ssh('new --name web --json');
  assert.equal(made.code, 0, made.stderr);
  assert.equal(JSON.parse(made.stdout).vm_name, 'web');
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
});
after(() => h?.close());

test('vm: the exit status of the VM command is the SSH exit status', async () => {
  const r = await h.ssh(`ssh web 'exit 7'`);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, '');
  assert.equal(r.code, 7);
  assert.equal((await h.ssh('ssh web true')).code, 0);
});

test('vm: stdout and stderr of the VM command arrive apart; on a pty interleaved as produced', async () => {
  const r = await h.ssh(`ssh web 'echo out; echo err >&2; echo more'`);
  assert.deepEqual([r.stdout, r.stderr, r.code], ['out\nmore\n', 'err\n', 0]);
  const tty = await h.ssh(`ssh web 'echo out; echo err >&2; echo more'`, { extra: ['-tt'] });
  assert.deepEqual([tty.stdout, tty.code], ['out\r\nerr\r\nmore\r\n', 0]);
});

test('vm: output is streamed while the command still runs', async () => {
  // The command prints, then waits for a file that only a second command creates once the
  // first line has reached the client: buffered output would never get there.
  const script =
    'rm -f ~/go; echo first; i=0; while [ ! -f ~/go ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done; echo second';
  const child = spawn('ssh', h.sshArgs(`ssh web '${script}'`), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  let stdout = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout === 'first\n') resolve();
    });
    child.on('exit', () =>
      reject(new Error(`ssh exited first; stdout: ${JSON.stringify(stdout)}`)),
    );
  });
  const go = await h.ssh(`ssh web 'touch ~/go'`);
  assert.equal(go.code, 0, go.stderr);
  const [code] = await exited;
  assert.equal(stdout, 'first\nsecond\n');
  assert.equal(code, 0);
});

test('vm: in the REPL, output without a final newline does not carry the prompt', async () => {
  const c = new PtyClient(h.sshArgs(undefined));
  clients.push(c);
  await c.waitFor('exectl> ');
  c.type('ssh web printf hi\r');
  await c.waitFor('\r\nhi\r\nexectl> ');
  c.type('ssh web exit 3\r');
  await c.waitFor('exectl> ');
  c.type('exit\r');
  assert.equal(await c.exitCode(), 0);
});

test('vm: Ctrl-C in the REPL cancels a running VM command', async () => {
  const from = h.logs.length;
  const c = new PtyClient(h.sshArgs(undefined));
  clients.push(c);
  await c.waitFor('exectl> ');
  c.type(`ssh web 'echo sleeping; sleep 100'\r`);
  await c.waitFor('sleeping\r\n');
  c.type('\x03');
  await c.waitFor('^C\r\nexectl> ');
  c.type('exit\r');
  assert.equal(await c.exitCode(), 0);
  assert.match(h.logs.slice(from).join('\n'), / cmd="ssh" status=499 /);
});
