// SSH callers hold no token but are rate-limited per key, in the same bucket as the key's
// tokens on /exec: one limiter shared by both front ends.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRegistry } from '../../../src/service/commands/index.js';
import { mintWithShellRecipe, run } from '../../helpers/keys.js';
import { startSshHarness, type SshHarness } from './harness.js';

let h: SshHarness;
before(async () => {
  h = await startSshHarness({
    registry: buildRegistry(),
    rateLimit: { capacity: 3, refillMs: 3_600_000 },
    http: true,
  });
});
after(() => h?.close());

test('rate limit: SSH commands and /exec requests of one key empty one bucket', async () => {
  const token = await mintWithShellRecipe(h.owner.key, '{"exp":4000000000}', 'v0@localhost');
  assert.equal((await h.ssh('whoami --json')).code, 0);
  const http = await run('curl', [
    '-sS',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code}',
    '-H',
    `Authorization: Bearer ${token}`,
    '--data-binary',
    'whoami',
    `${h.http!.url}/exec`,
  ]);
  assert.equal(http.stdout, '200');
  assert.equal((await h.ssh('whoami --json')).code, 0);

  const refused = await h.ssh('whoami --json');
  assert.equal(refused.stdout, '');
  assert.equal(refused.stderr, 'error: rate limit exceeded\n');
  assert.equal(refused.code, 6);
  assert.match(h.logs.at(-1)!, / via=ssh key=SHA256:\S+ cmd="-" status=429 /);
});

test('rate limit: another key has its own bucket', async () => {
  const other = await h.newKey('other', { register: true });
  const r = await h.ssh('whoami --json', { key: other });
  assert.equal(r.code, 0, r.stderr);
});
