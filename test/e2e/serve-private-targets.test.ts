// `exectl serve --allow-private-targets` (SPEC §6, §7) and EXECTL_ALLOW_PRIVATE_TARGETS: without
// either, `integrations add` refuses a target on this host; with either, it is accepted.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateKey, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt } from './harness.js';
import { TEST_FLAGS, curlExec, recipeToken, startServe, stopAll } from './serve-server.js';

let dir: TempDir;
let key: GeneratedKey;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-serve-private');
  key = await generateKey(dir.path, 'ed25519', { name: 'me' });
});
after(async () => {
  await stopAll();
  await dir.remove();
});

const ADD = 'integrations add http-proxy --name local --target http://localhost:9/api';

async function addLocalTarget(args: string[], env: Record<string, string> = {}) {
  const server = await startServe(
    ['--ephemeral', ...TEST_FLAGS, '--authorized-key', key.pubPath, ...args],
    { home: dir.path, env },
  );
  const answer = await curlExec(server.url, await recipeToken(key, ['integrations add']), ADD);
  assert.equal((await server.stop()).code, 0);
  return answer;
}

test('by default a target on this host is refused with one 422 line', async () => {
  assert.deepEqual(await addLocalTarget([]), {
    status: 422,
    body:
      '{"error":"invalid target \\"http://localhost:9\\": it reaches a loopback, link-local, ' +
      'unspecified, multicast or broadcast address, or this host\'s own; exectl serve --allow-private-targets allows that"}\n',
  });
});

test('--allow-private-targets, or its variable, accepts it', async () => {
  for (const answer of [
    await addLocalTarget(['--allow-private-targets']),
    await addLocalTarget([], { EXECTL_ALLOW_PRIVATE_TARGETS: '1' }),
  ]) {
    assert.equal(answer.status, 200, answer.body);
    assert.equal((JSON.parse(answer.body) as { target: string }).target, 'http://localhost:9/api');
  }
});
