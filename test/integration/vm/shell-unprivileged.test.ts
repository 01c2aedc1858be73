// An interactive shell when the server is not root: the VM's root is the server's own user,
// nsenter keeps its credentials, and the resize runs inside the VM the same way. This suite
// runs as root, so the runtime runs in a child process under another uid.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chown } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';
import { asUser, runScriptAs } from '../../helpers/script.js';

// Any id with no other process: it needs no passwd entry.
const SERVER_UID = 47475;

let dir: TempDir;

before(async () => {
  dir = await createTempDir('vm-shell-unpriv');
  await chown(dir.path, SERVER_UID, SERVER_UID);
});
after(() => dir.remove());

test('a non-root server gives a VM shell its size, resizes it, and reports its exit', async (t) => {
  if (process.getuid?.() !== 0) return t.skip('this suite already runs as a non-root user');
  // The child waits for each piece of screen text it expects (bounded), then prints the
  // facts it saw, one per line.
  const script = `
    import { PassThrough } from 'node:stream';
    import { runtimeFor } from ${JSON.stringify(resolve('test/integration/vm/fixture.ts'))};
    const runtime = await runtimeFor('bwrap');
    const vm = { name: 'tiny', diskDir: ${JSON.stringify(dir.join('data', 'vms', '1'))}, env: {} };
    await runtime.create(vm);
    const input = new PassThrough();
    const output = new PassThrough();
    let screen = '';
    output.on('data', (chunk) => (screen += chunk));
    const until = async (pattern) => {
      for (let i = 0; i < 300 && !pattern.test(screen); i++) await new Promise((r) => setTimeout(r, 50));
      const match = pattern.exec(screen);
      if (match === null) throw new Error('never saw ' + pattern + ' in ' + JSON.stringify(screen));
      screen = screen.slice(match.index + match[0].length);
      return match[1];
    };
    const shell = runtime.shell(vm, { pty: { cols: 77, rows: 22, term: 'vt100' }, input, output });
    input.write('stty size; id -u; hostname\\r');
    console.log(await until(/(\\d+ \\d+\\r\\n\\d+\\r\\n[a-z]+)\\r\\n/));
    input.write("sh -c 'trap \\"stty size; exit 0\\" WINCH; echo wait\\"\\"ing; while :; do sleep 0.05; done'\\r");
    await until(/(waiting)\\r\\n/);
    shell.resize(100, 31);
    console.log(await until(/^(\\d+ \\d+)\\r\\n/));
    input.write('exit 4\\r');
    console.log(JSON.stringify(await shell.exited));
    await runtime.shutdown();`;
  const stdout = await runScriptAs(asUser(SERVER_UID), script);
  assert.equal(
    stdout,
    ['22 77\r\n0\r\ntiny', '31 100', '{"exitCode":4,"aborted":false}', ''].join('\n'),
  );
});
