// `exectl serve` on a real pseudo-terminal (util-linux `script`): a coloured banner, Ctrl-C
// typed on the terminal stops it cleanly, and `accounts list` shows a table.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { generateKey, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { REPO, assertBuilt } from './harness.js';
import { TEST_FLAGS, userEnv } from './serve-server.js';

const GIVE_UP_MS = 30_000;

let dir: TempDir;
let key: GeneratedKey;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-serve-tty');
  key = await generateKey(dir.path, 'ed25519', { name: 'me', comment: 'me@desk' });
});
after(() => dir.remove());

const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * Runs exectl on one pty; each time the screen shows a `when` text, types its keys. Returns
 * the exit code and everything the terminal showed.
 */
async function onTerminal(
  args: readonly string[],
  script: { when: string; type: string }[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; screen: string }> {
  // `exec`: Ctrl-C on the terminal must reach exectl alone, not a shell waiting for it.
  const command = `exec ${[process.execPath, join(REPO, 'bin', 'exectl.cjs'), ...args].map(quote).join(' ')}`;
  const { NO_COLOR: _noColor, ...plainEnv } = userEnv(dir.path, { TERM: 'xterm', ...env });
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: env.NO_COLOR === undefined ? plainEnv : { ...plainEnv, NO_COLOR: env.NO_COLOR },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const giveUp = setTimeout(() => child.kill(), GIVE_UP_MS);
  let screen = '';
  let next = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString('utf8');
    const step = script[next];
    if (step !== undefined && screen.includes(step.when)) {
      next += 1;
      child.stdin.write(step.type);
    }
  });
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(giveUp);
  return { code, screen };
}

const SERVE = ['serve', '--ephemeral', ...TEST_FLAGS, '--owner', 'me@example.com'];
const CTRL_C_WHEN_READY = [{ when: 'Ctrl-C stops the server.', type: '\x03' }];

test('a coloured banner; Ctrl-C typed on the terminal stops the server cleanly', async () => {
  const { code, screen } = await onTerminal(
    [...SERVE, '--authorized-key', key.pubPath],
    CTRL_C_WHEN_READY,
  );
  assert.equal(code, 0, screen);
  assert.ok(screen.includes('\x1b[32mexectl serve is ready\x1b[39m'), screen);
  assert.ok(screen.includes('\x1b[2mRuntime    \x1b[22m \x1b[31mprocess\x1b[39m'), screen);
  assert.ok(screen.includes('\x1b[31m  WARNING: VM runtime "process": NO ISOLATION.\x1b[39m'));
  assert.match(screen, /exectl: SIGINT: stopping .*\r\nexectl: stopped\r\n$/);
});

test('NO_COLOR keeps the banner plain on a terminal', async () => {
  const { code, screen } = await onTerminal(SERVE, CTRL_C_WHEN_READY, { NO_COLOR: '1' });
  assert.equal(code, 0, screen);
  assert.ok(screen.includes('exectl serve is ready\r\n'), screen);
  assert.ok(!screen.includes('\x1b['), screen);
});

test('accounts list shows a table on a terminal', async () => {
  const data = dir.join('data');
  const added = spawnSync(
    process.execPath,
    [
      join(REPO, 'bin', 'exectl.cjs'),
      'serve',
      'accounts',
      'add',
      'ada@example.com',
      '--key',
      key.pubPath,
      '--data',
      data,
    ],
    { env: userEnv(dir.path), encoding: 'utf8' },
  );
  assert.equal(added.status, 0, added.stderr);
  const { code, screen } = await onTerminal(['serve', 'accounts', 'list', '--data', data], []);
  assert.equal(code, 0, screen);
  const [header, row] = screen.split('\r\n');
  assert.deepEqual(header!.split(/ {2,}/), ['EMAIL', 'USER ID', 'SSH KEYS', 'CREATED']);
  const cells = row!.split(/ {2,}/);
  assert.deepEqual(cells.slice(0, 1).concat(cells.slice(2, 3)), ['ada@example.com', 'me@desk']);
  assert.match(cells[1]!, /^usr_[a-z2-7]{16}$/);
  assert.match(cells[3]!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  // Columns line up under their headers.
  for (const [i, title] of ['USER ID', 'SSH KEYS', 'CREATED'].entries()) {
    assert.equal(row!.indexOf(cells[i + 1]!), header!.indexOf(title), title);
  }
});
