// The token of one request: where a configured token comes from, and the exact permissions of
// a token minted on the spot (5 minutes, exactly the command's path), verified like the server.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import {
  configuredToken,
  mintRequestToken,
  requestToken,
  requestTokenPayload,
} from '../../../../src/cli/exec/token.js';
import { verifySvc0 } from '../../../../src/token/verify.js';
import { ExectlError } from '../../../../src/errors.js';
import { createMemorySigner } from '../../../helpers/signers.js';
import { createTempDir, type TempDir } from '../../../helpers/tmp.js';
import { capturedContext } from '../../../helpers/io.js';

const NOW = 1_800_000_000;

test('requestTokenPayload: exp in 5 minutes, cmds exactly the scope', () => {
  const cases: [string, string][] = [
    ['whoami', `{"exp":${NOW + 300},"cmds":["whoami"]}`],
    ['ssh-key list', `{"exp":${NOW + 300},"cmds":["ssh-key list"]}`],
    ['ssh web', `{"exp":${NOW + 300},"cmds":["ssh web"]}`],
    ['svc0-to-svc1', `{"exp":${NOW + 300},"cmds":["svc0-to-svc1"]}`],
  ];
  for (const [scope, payload] of cases) assert.equal(requestTokenPayload(scope, NOW), payload);
});

test('requestTokenPayload: a token that makes a token lives as long as it, plus 5 minutes', () => {
  const gen = 'ssh-key generate-api-key';
  const grant = (lifetimeSeconds: number | null) => ({ cmds: ['ls'], lifetimeSeconds });
  assert.equal(
    requestTokenPayload(gen, NOW, grant(3600)),
    `{"exp":${NOW + 3600 + 300},"cmds":["${gen}","ls"]}`,
  );
  assert.equal(requestTokenPayload(gen, NOW, grant(null)), `{"cmds":["${gen}","ls"]}`);
  // Never past the latest exp a token may carry: the service refuses such an --exp itself.
  assert.equal(
    requestTokenPayload(gen, NOW, grant(100 * 31_536_000)),
    `{"exp":4102444800,"cmds":["${gen}","ls"]}`,
  );
});

test('mintRequestToken: a svc0 for the namespace that verifies and allows only the scope', async () => {
  const signer = createMemorySigner('ed25519');
  const token = await mintRequestToken({
    signer,
    namespace: 'v0@example.com',
    scope: 'ssh-key list',
    nowSeconds: NOW,
  });
  const verified = verifySvc0(token, {
    namespace: 'v0@example.com',
    nowSeconds: NOW + 300,
    findKey: (fp) => (fp === signer.publicKey.fingerprint ? signer.publicKey : undefined),
  });
  assert.equal(verified.payload.toString('utf8'), `{"exp":${NOW + 300},"cmds":["ssh-key list"]}`);
  assert.deepEqual(verified.permissions.cmds, ['ssh-key list']);
  assert.throws(
    () =>
      verifySvc0(token, {
        namespace: 'v0@example.com',
        nowSeconds: NOW + 301,
        findKey: () => signer.publicKey,
      }),
    { message: 'invalid token: expired' },
  );
});

let dir: TempDir;
before(async () => {
  dir = await createTempDir('token');
  await mkdir(dir.join('.config', 'exectl'), { recursive: true });
  await writeFile(
    dir.join('.config', 'exectl', 'config.json'),
    JSON.stringify({ profiles: { work: { token: 'svc1.PROFILE' }, bare: {} } }),
  );
});
after(() => dir.remove());

test('configuredToken: --token > EXECTL_TOKEN > the profile token', () => {
  const cases: [Record<string, string>, string | undefined, string | undefined][] = [
    [{}, undefined, undefined],
    [{ EXECTL_PROFILE: 'work' }, undefined, 'svc1.PROFILE'],
    [{ EXECTL_PROFILE: 'bare' }, undefined, undefined],
    [{ EXECTL_PROFILE: 'work', EXECTL_TOKEN: 'svc1.ENV' }, undefined, 'svc1.ENV'],
    [{ EXECTL_PROFILE: 'work', EXECTL_TOKEN: 'svc1.ENV' }, 'svc1.FLAG', 'svc1.FLAG'],
    [{ EXECTL_TOKEN: '' }, undefined, undefined],
    [{ EXECTL_TOKEN: ' svc1.SPACED\n' }, undefined, 'svc1.SPACED'],
  ];
  for (const [env, flag, expected] of cases) {
    const { ctx } = capturedContext({ HOME: dir.path, ...env });
    assert.equal(configuredToken(ctx, ctx.settings(), flag), expected, JSON.stringify([env, flag]));
  }
});

test('requestToken: a line that starts quoted cannot get a minted token', async () => {
  const { ctx } = capturedContext({ HOME: dir.path });
  await assert.rejects(
    requestToken(ctx, ctx.settings(), undefined, undefined),
    (err: unknown) =>
      err instanceof ExectlError &&
      err.code === 'usage' &&
      err.message === 'cannot tell which command the line runs: it starts quoted' &&
      err.hint === 'write the command name unquoted, or give a token with --token',
  );
  assert.deepEqual(await requestToken(ctx, ctx.settings(), 'svc1.GIVEN', undefined), {
    token: 'svc1.GIVEN',
    signedBy: 'the token given with --token',
  });
});

test('requestToken: with no key anywhere, the key error of the signer', async () => {
  const { ctx } = capturedContext({ HOME: dir.path });
  await assert.rejects(requestToken(ctx, ctx.settings(), undefined, 'whoami'), {
    code: 'key_error',
    message: 'no SSH key found',
  });
});
