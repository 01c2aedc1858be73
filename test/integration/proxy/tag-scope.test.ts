// The VM proxy applies a key's tag scope (SPEC §3 `generate-api-key --tag`) on every request:
// a VM token of a `--tag ci` key enters its VM only while the VM carries the tag `ci`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { curl, echoOf, FAR, headerText, startProxyFixture, withToken } from './fixture.js';
import type { ProxyFixture } from './fixture.js';

const OWNER_CMDS = ['tag', 'ssh-key generate-api-key'];

describe('VM proxy: a tag-scoped key', () => {
  let f: ProxyFixture;
  let owner: string;
  before(async () => {
    f = await startProxyFixture();
    owner = await f.svc.token(`{"exp":${FAR},"cmds":${JSON.stringify(OWNER_CMDS)}}`);
    await f.createVm('ci-vm');
    await f.startEchoServer('ci-vm');
  });
  after(() => f.stop());

  async function ownerExec(line: string): Promise<unknown> {
    const res = await fetch(`${f.svc.url}/exec`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${owner}` },
      body: line,
    });
    const text = await res.text();
    assert.equal(res.status, 200, `${line}: ${text}`);
    return JSON.parse(text) as unknown;
  }

  test('enters the VM while it is tagged ci, and gets the one 401 once it is not', async () => {
    await ownerExec('tag ci-vm ci');
    const { token } = (await ownerExec('ssh-key generate-api-key --vm ci-vm --tag ci')) as {
      token: string;
    };
    const echo = echoOf(await curl(f.vmUrl('ci-vm'), withToken(token)));
    assert.equal(headerText(echo.rawHeaders, 'x-exectl-email'), 'owner@example.com');

    await ownerExec('tag -d ci-vm ci');
    const refused = await curl(f.vmUrl('ci-vm'), withToken(token));
    assert.equal(refused.status, 401, refused.body);
    assert.deepEqual(JSON.parse(refused.body), { error: 'invalid token' });
    assert.equal(
      refused.headers['www-authenticate'],
      'Bearer realm="ci-vm.localhost", Basic realm="ci-vm.localhost"',
    );

    await ownerExec('tag ci-vm ci');
    echoOf(await curl(f.vmUrl('ci-vm'), withToken(token)));
  });
});
