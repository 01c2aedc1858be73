// A descriptor whoever started `exectl serve` left open across exec would reach every VM and
// command the server starts: the server closes it at start.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { createTempDir } from '../helpers/tmp.js';
import { startServe, TEST_FLAGS } from './serve-server.js';

const dir = await createTempDir('inherited-fds');
after(() => dir.remove());

test('a descriptor inherited without close-on-exec is closed before the server starts anything', async () => {
  // bash leaves fd 57 open across its exec of exectl (dash's redirections stop at fd 9).
  const serve = await startServe([...TEST_FLAGS, '--ephemeral'], {
    home: dir.path,
    wrap: ['bash', '-c', 'exec "$@" 57</dev/null', 'bash'],
  });
  try {
    const open = await readdir(`/proc/${serve.child.pid}/fd`);
    assert.ok(open.includes('2'));
    assert.equal(open.includes('57'), false, `open: ${open.join(' ')}`);
  } finally {
    await serve.stop();
  }
});
