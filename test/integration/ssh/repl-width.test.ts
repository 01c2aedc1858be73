// The REPL's readable text fits the client's terminal (issue 28: `help` and `ls -l` wrapped
// mid-word at 80 columns): the width comes from the pty request, and a window change (a user
// dragging the terminal window, through the real OpenSSH client) moves it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildRegistry } from '../../../src/service/commands/index.js';
import { displayWidth } from '../../../src/text-views/width.js';
import { startSshHarness, type SshHarness } from './harness.js';
import { SizedPtyClient } from './vm-shell-client.js';

let h: SshHarness;
before(async () => {
  h = await startSshHarness({ registry: buildRegistry() });
});
after(() => h?.close());

/** The lines `help` printed, escape sequences (the line editor's) left out. */
async function helpLines(c: SizedPtyClient): Promise<string[]> {
  c.type('help\r');
  const [, text] = await c.waitFor(/help\r\n([\s\S]*?)exectl> /);
  return text!
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
    .split('\r\n')
    .filter((line) => line !== '');
}

test('help in the REPL fits the pty, and follows a window change', async () => {
  const c = new SizedPtyClient(h.sshArgs(undefined), { cols: 40, rows: 30 });
  try {
    await c.waitFor(/exectl> /);
    const narrow = await helpLines(c);
    assert.ok(narrow.length > 5, narrow.join('\n'));
    for (const line of narrow) assert.ok(displayWidth(line) <= 40, `${line.length}: ${line}`);

    await c.resize(120, 30);
    const wide = await helpLines(c);
    for (const line of wide) assert.ok(displayWidth(line) <= 120, line);
    // Wider lines once the window is wider: the width is the window's now, not at connection.
    assert.ok(Math.max(...wide.map(displayWidth)) > 40, wide.join('\n'));
  } finally {
    await c.stop();
  }
});
