// The built CLI on a real pseudo-terminal (util-linux `script`): the no-echo passphrase prompt,
// and colours only on a TTY without NO_COLOR / --no-color.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generateKey, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { REPO, assertBuilt, exectl } from './harness.js';

const PROMPT = 'exectl: passphrase for the SSH key: ';
const GIVE_UP_MS = 20_000;

let dir: TempDir;
let locked: GeneratedKey;

before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-tty');
  locked = await generateKey(dir.path, 'ed25519', { name: 'locked', passphrase: 'sesame' });
});
after(() => dir.remove());

const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * Runs exectl with stdin, stdout and stderr on one pty. When the output shows `prompt`, types
 * `keys`. Returns the exit code and everything the terminal showed.
 */
async function onTerminal(
  args: readonly string[],
  opts: { env?: Record<string, string>; prompt?: string; keys?: string } = {},
): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, join(REPO, 'bin', 'exectl.cjs'), ...args].map(quote).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir.path, TERM: 'xterm', ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const giveUp = setTimeout(() => child.kill(), GIVE_UP_MS);
  let screen = '';
  let typed = false;
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString('utf8');
    if (!typed && opts.prompt !== undefined && screen.includes(opts.prompt)) {
      typed = true;
      child.stdin.write(opts.keys ?? '');
    }
  });
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(giveUp);
  return { code, screen };
}

describe('passphrase prompt on a terminal', () => {
  test('typed passphrase (with a correction) unlocks the key and is never echoed', async () => {
    const { code, screen } = await onTerminal(['mint', '--key', locked.path], {
      prompt: PROMPT,
      keys: 'sesamx\x7fe\r',
    });
    assert.equal(code, 0, screen);
    assert.ok(!screen.includes('sesam'), `echoed: ${JSON.stringify(screen)}`);
    const token = /svc0\.[A-Za-z0-9_.-]+/.exec(screen)?.[0];
    assert.ok(token !== undefined, screen);
    const verified = await exectl(['inspect', '--verify', locked.pubPath, token], {
      home: dir.path,
    });
    assert.equal(verified.code, 0, verified.stdout);
  });

  test('a wrong typed passphrase fails with one line, exit 2', async () => {
    const { code, screen } = await onTerminal(['mint', '--key', locked.path], {
      prompt: PROMPT,
      keys: 'nope\r',
    });
    assert.equal(code, 2);
    assert.equal(
      screen,
      `${PROMPT}\r\nexectl: wrong passphrase for ${locked.path} — check EXECTL_PASSPHRASE or the passphrase typed\r\n`,
    );
  });

  test('Ctrl-C at the prompt cancels, exit 2', async () => {
    const { code, screen } = await onTerminal(['mint', '--key', locked.path], {
      prompt: PROMPT,
      keys: '\x03',
    });
    assert.equal(code, 2);
    assert.equal(screen, `${PROMPT}\r\nexectl: passphrase prompt cancelled\r\n`);
  });

  test('EXECTL_PASSPHRASE wins over the prompt', async () => {
    const { code, screen } = await onTerminal(['mint', '--key', locked.path], {
      env: { EXECTL_PASSPHRASE: 'sesame' },
    });
    assert.equal(code, 0);
    assert.match(screen, /^svc0\.[A-Za-z0-9_.-]+\r\n$/);
  });
});

describe('colours', () => {
  const GREEN_YES = '\x1b[32myes\x1b[39m';
  const mintToken = async () => {
    const minted = await exectl(['mint', '--key', locked.path], {
      home: dir.path,
      env: { EXECTL_PASSPHRASE: 'sesame' },
    });
    return minted.stdout.trim();
  };

  test('on a TTY the report is coloured; NO_COLOR and --no-color turn it off', async () => {
    const token = await mintToken();
    // `yes` (green) needs a checked signature: without --verify `valid` is conditional.
    const verify = ['--verify', locked.pubPath];
    const coloured = await onTerminal(['inspect', ...verify, token]);
    assert.equal(coloured.code, 0);
    assert.ok(
      coloured.screen.includes(`\x1b[2mvalid      \x1b[22m${GREEN_YES}`),
      JSON.stringify(coloured.screen),
    );
    for (const [args, env] of [
      [['inspect', ...verify, token], { NO_COLOR: '1' }],
      [['--no-color', 'inspect', ...verify, token], {}],
    ] as const) {
      const plain = await onTerminal(args, { env });
      assert.equal(plain.code, 0);
      assert.ok(!plain.screen.includes('\x1b['), JSON.stringify(plain.screen));
      assert.match(plain.screen, /\r\nvalid {6}yes\r\n/);
    }
  });

  test('inspect with no token on a terminal says so instead of waiting', async () => {
    const { code, screen } = await onTerminal(['inspect']);
    assert.equal(code, 2);
    assert.equal(
      screen,
      'exectl: no token given — pass it as an argument, or pipe it in: echo "$TOKEN" | exectl inspect\r\n',
    );
  });
});
