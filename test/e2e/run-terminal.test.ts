// `exectl run` on a real pseudo-terminal (util-linux `script`) against a real service: --json
// gives indented, coloured JSON for a person; --no-color / NO_COLOR / --raw; the delayed
// spinner. The readable text shown without --json is run-text.test.ts's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { homeWithOwnerKey, startTestService, type TestService } from '../helpers/service.js';
import { answerJson, startLoopback, type Loopback } from '../unit/cli/exec/loopback.js';
import { assertBuilt, exectl } from './harness.js';
import { onTerminal as onTerminal_, shown } from './pty.js';

const ESC = '\x1b';

let svc: TestService;
let home: string;
let whoami: unknown;

before(async () => {
  assertBuilt();
  svc = await startTestService();
  home = await homeWithOwnerKey(svc);
  const piped = await exectl(['--url', svc.url, 'run', 'whoami'], { home });
  assert.equal(piped.code, 0, piped.stderr);
  whoami = JSON.parse(piped.stdout);
});
after(() => svc.stop());

const onTerminal = (args: readonly string[], env: Record<string, string> = {}) =>
  onTerminal_(home, args, env);

describe('JSON on a terminal (--json)', () => {
  test('indented and coloured like jq: keys, strings, numbers and literals', async () => {
    const { code, screen } = await onTerminal(['--url', svc.url, 'run', '--json', 'whoami']);
    assert.equal(code, 0, screen);
    assert.ok(screen.startsWith(shown('{\n  ')), JSON.stringify(screen));
    assert.ok(
      screen.includes(`${ESC}[34m"email"${ESC}[39m: ${ESC}[32m"owner@example.com"${ESC}[39m`),
      JSON.stringify(screen),
    );
    assert.ok(
      screen.includes(`${ESC}[34m"current"${ESC}[39m: ${ESC}[35mtrue${ESC}[39m`),
      JSON.stringify(screen),
    );
    const plain = screen.replace(/\x1b\[\d+m/g, '');
    assert.equal(plain, shown(`${JSON.stringify(whoami, null, 2)}\n`));
  });

  test('--no-color and NO_COLOR: indented, no escape sequence', async () => {
    const expected = shown(`${JSON.stringify(whoami, null, 2)}\n`);
    const flag = await onTerminal(['--url', svc.url, '--no-color', 'run', '--json', 'whoami']);
    assert.deepEqual([flag.code, flag.screen], [0, expected]);
    const env = await onTerminal(['--url', svc.url, 'run', '--json', 'whoami'], { NO_COLOR: '1' });
    assert.deepEqual([env.code, env.screen], [0, expected]);
  });

  test('--raw: the compact line the server sent, even here', async () => {
    const { code, screen } = await onTerminal(['--url', svc.url, 'run', '--raw', 'whoami']);
    assert.deepEqual([code, screen], [0, shown(`${JSON.stringify(whoami)}\n`)]);
  });

  test('an error is one plain line on the terminal too', async () => {
    const { code, screen } = await onTerminal(['--url', svc.url, 'run', 'frob']);
    assert.deepEqual(
      [code, screen],
      [5, shown('exectl: unknown command: frob — run `exectl run help` to list the commands\n')],
    );
  });
});

describe('spinner', () => {
  // The answer is held until the test releases it: the spinner's appearance then depends on no
  // clock race, however busy the machine is.
  let held: Loopback;
  let release: (() => void) | undefined;
  before(async () => {
    held = await startLoopback((res) => {
      release = () => {
        release = undefined; // once
        answerJson(res, 200, { ok: true });
      };
    });
  });
  after(() => held.close());

  const args = (...first: string[]) => [
    ...first,
    ...['--url', held.url, '--no-color', 'run', '--token', 'svc1.X', 'whoami'],
  ];

  test('a slow answer shows what it waits for and the seconds, cleared before the output', async () => {
    release = undefined;
    // Released once the spinner has counted a whole second (a bounded wait: pty.ts gives up).
    const { code, screen } = await onTerminal_(
      home,
      args(),
      { EXECTL_SPINNER: 'on' },
      {
        onScreen: (now) => {
          if (/whoami: waiting for the server… [1-9]\d*s/.test(now)) release?.();
        },
      },
    );
    assert.equal(code, 0, screen);
    assert.ok(screen.includes('whoami: waiting for the server… 0s'), JSON.stringify(screen));
    assert.ok(
      /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] whoami: waiting for the server… 1s/.test(screen),
      JSON.stringify(screen),
    );
    // The spinner's line is cleared (erase line, show the cursor) before the answer is printed:
    // the generic text, since `{"ok":true}` is not the shape of whoami's answer that the
    // client's view knows.
    const cleared = `${ESC}[1G${ESC}[0K${ESC}[?25h`;
    assert.ok(screen.includes(cleared + shown('ok: true\n')), JSON.stringify(screen));
  });

  test('-q: no spinner, however long the answer takes', async () => {
    release = undefined;
    // Released once the request is in and a spinner would be due (0.3 s): it never shows.
    const watching = setInterval(() => release?.(), 1000);
    const { code, screen } = await onTerminal_(home, args('-q'), { EXECTL_SPINNER: 'on' });
    clearInterval(watching);
    assert.deepEqual([code, screen], [0, shown('ok: true\n')]);
  });

  test('EXECTL_SPINNER=off: no spinner', async () => {
    release = undefined;
    const watching = setInterval(() => release?.(), 1000);
    const { code, screen } = await onTerminal_(home, args(), { EXECTL_SPINNER: 'off' });
    clearInterval(watching);
    assert.deepEqual([code, screen], [0, shown('ok: true\n')]);
  });
});
