// The process skeleton through the built CLI: --version, --help, usage errors as one line with
// exit 2, and EXECTL_DEBUG stack traces. (Internal errors: test/unit/cli/main.test.ts.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { REPO, assertBuilt, assertOneLineError, exectl } from './harness.js';

let dir: TempDir;
const cli = (args: readonly string[], env?: Record<string, string>) =>
  exectl(args, { home: dir.path, ...(env === undefined ? {} : { env }) });

before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-program');
});
after(() => dir.remove());

test('--version prints the package version', async () => {
  const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
    version: string;
  };
  assert.deepEqual(await cli(['--version']), { code: 0, stdout: `${version}\n`, stderr: '' });
});

test('--help lists the commands, global flags, environment and exit codes', async () => {
  const result = await cli(['--help']);
  assert.equal(result.code, 0);
  assert.equal(result.stderr, '');
  assert.match(result.stdout, /^Usage: exectl \[options\] \[command\]\n/);
  for (const line of [
    /\n {2}--url <url> +service URL/,
    /\n {2}--profile <name> +profile from the config file/,
    /\n {2}--no-color +never colour the output/,
    /\n {2}-q, --quiet +no warnings/,
    /\n {2}--version +print the version and exit/,
    /\n {2}mint \[options\] +mint a svc0 token/,
    /\n {2}inspect \[options\] \[token\] +decode a token and check it offline/,
    /\n {2}run \[options\] <command-line\.\.\.> +run a command on the service/,
    /\n {2}serve \[options\] +run the whole service locally/,
    /\nExit codes \(run, ssh; inspect uses 0 valid, 1 invalid, 2 malformed\):\n/,
    /\n {2}5 unknown command \(404\), 6 rate limited \(429\), 7 timed out \(504\),\n {2}8 server unreachable, 9 server error \(5xx\)\n/,
  ]) {
    assert.match(result.stdout, line);
  }
});

test('each command has its own --help, also as `exectl help <command>`', async () => {
  for (const args of [
    ['mint', '--help'],
    ['help', 'mint'],
  ]) {
    const result = await cli(args);
    assert.equal(result.code, 0, args.join(' '));
    assert.match(result.stdout, /^Usage: exectl mint \[options\]\n/);
    for (const flag of [
      '--exp <when>',
      '--nbf <when>',
      '--cmds <list>',
      '--ctx <json>',
      '--vm <name>',
      '--key <path>',
      '--namespace <ns>',
    ]) {
      assert.ok(result.stdout.includes(flag), `${flag} in mint --help`);
    }
  }
  const inspect = await cli(['inspect', '--help']);
  assert.match(inspect.stdout, /^Usage: exectl inspect \[options\] \[token\]\n/);
  assert.match(inspect.stdout, /--verify <file>/);
  assert.match(inspect.stdout, /--json/);
});

test('no command: help on stderr, exit 2', async () => {
  const result = await cli([]);
  assert.equal(result.code, 2);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, /^Usage: exectl \[options\] \[command\]\n/);
});

test('usage errors are one line, exit 2, no stack trace', async () => {
  const cases: [string[], string][] = [
    [['--bogus'], 'unknown option \'--bogus\' — see "exectl --help"'],
    // did-you-mean.ts, the same suggestions as the server's (issue 28).
    [['mnt'], 'unknown command: mnt — did you mean "exectl mint"?'],
    [['rn'], 'unknown command: rn — did you mean "exectl run"?'],
    [['auth', 'stauts'], 'unknown command: auth stauts — did you mean "exectl auth status"?'],
    [
      ['serve', 'accounts', 'ad'],
      'unknown command: serve accounts ad — did you mean "exectl serve accounts add"?',
    ],
    [['frobnicate'], 'unknown command: frobnicate — see "exectl --help"'],
    [['--profile'], 'option \'--profile <name>\' argument missing — see "exectl --help"'],
    [
      ['inspect', 'a', 'b'],
      'too many arguments for \'inspect\'. Expected 1 argument but got 2. — see "exectl inspect --help"',
    ],
    [
      ['--url', 'http://x', 'inspect', '--bogus'],
      'unknown option \'--bogus\' — see "exectl inspect --help"',
    ],
  ];
  for (const [args, line] of cases) assertOneLineError(await cli(args), 2, line);
});

test('global flags go before or after the command', async () => {
  const before = await cli(['-q', 'inspect', 'svc1.ABCDEFGHIJKLMNOPQRSTUVWXYA']);
  const after = await cli(['inspect', 'svc1.ABCDEFGHIJKLMNOPQRSTUVWXYA', '-q', '--no-color']);
  assert.equal(before.code, 0);
  assert.deepEqual(after, before);
});

test('EXECTL_DEBUG=1 adds the stack trace after the one-line error', async () => {
  const plain = await cli(['mint']);
  assert.equal(plain.stderr.split('\n').length, 2, 'one line and the final newline');
  const debug = await cli(['mint'], { EXECTL_DEBUG: '1' });
  assert.equal(debug.code, 2);
  const [first, ...rest] = debug.stderr.split('\n');
  assert.equal(
    first,
    'exectl: no SSH key found — create one with `ssh-keygen -t ed25519`, or pass --key PATH',
  );
  assert.ok(
    rest.some((line) => /^ {4}at /.test(line)),
    debug.stderr,
  );
});
