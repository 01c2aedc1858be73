// `exectl mint --svc1` with the built CLI against a real service: the svc0 is exchanged through
// `svc0-to-svc1`, only the svc1 is printed, and it carries the svc0's permissions.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { homeWithOwnerKey, startTestService, type TestService } from '../helpers/service.js';
import { assertBuilt, assertOneLineError, exectl, type CliResult } from './harness.js';

let svc: TestService;
let home: string;

before(async () => {
  assertBuilt();
  svc = await startTestService();
  home = await homeWithOwnerKey(svc);
});
after(() => svc.stop());

function cli(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return exectl(['--url', svc.url, ...args], { home, env });
}

test('prints only a svc1 token, which allows what the svc0 allowed', async () => {
  const minted = await cli(['mint', '--svc1', '--exp', '1h', '--cmds', 'whoami']);
  assert.equal(minted.stderr, '');
  assert.equal(minted.code, 0);
  assert.match(minted.stdout, /^svc1\.[A-Z2-7]{26}\n$/);
  const svc1 = minted.stdout.trim();
  const whoami = await cli(['run', '--token', svc1, 'whoami']);
  assert.equal(whoami.code, 0, whoami.stderr);
  assert.equal(JSON.parse(whoami.stdout).email, 'owner@example.com');
  assertOneLineError(
    await cli(['run', '--token', svc1, 'ls']),
    4,
    `command not allowed: ls — the token's cmds do not include "ls": mint one with --cmds "ls"`,
  );
});

test('--vm: a VM token for an existing VM; a missing VM is the command failing (1)', async () => {
  assert.equal((await cli(['run', 'new', '--name', 'web'])).code, 0);
  const minted = await cli(['mint', '--svc1', '--vm', 'web']);
  assert.deepEqual([minted.code, minted.stderr], [0, '']);
  assert.match(minted.stdout, /^svc1\.[A-Z2-7]{26}\n$/);
  assertOneLineError(
    await cli(['mint', '--svc1', '--vm', 'nope']),
    1,
    'vm "nope" not found — run `exectl run ls` to see yours',
  );
});

test('the configured token is used for the exchange when there is one', async () => {
  const onlyWhoami = await svc.token('{"exp":4000000000,"cmds":["whoami"]}');
  assertOneLineError(
    await cli(['mint', '--svc1'], { EXECTL_TOKEN: onlyWhoami }),
    4,
    `command not allowed: svc0-to-svc1 — the token's cmds do not include "svc0-to-svc1": mint one with --cmds "svc0-to-svc1"`,
  );
});

test('an unreachable server: exit 8 and no token at all on stdout', async () => {
  const url = 'http://127.0.0.1:9';
  assertOneLineError(
    await exectl(['--url', url, 'mint', '--svc1'], { home }),
    8,
    `cannot reach ${url}: connection refused — is \`exectl serve\` running? check --url / EXECTL_URL`,
  );
});
