// SPEC §3 `ssh-key generate-api-key`: "the request's own token bounds what it can grant (... never
// past its own exp)". Issue 25: a 5-minute token minted a never-expiring key that could mint more.
// Through the real /exec endpoint with a token made by ssh-keygen, the API key used as answered.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../../helpers/service.js';
import { rfc3339 } from '../../../src/time.js';

interface Answer {
  status: number;
  body: { error?: string; token?: string; expires_at?: string | null };
}

async function exec(svc: TestService, token: string, line: string): Promise<Answer> {
  const res = await fetch(`${svc.url}/exec`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
    body: line,
  });
  return { status: res.status, body: JSON.parse(await res.text()) as Answer['body'] };
}

describe('an API key never outlives the token that made it (issue 25)', () => {
  let svc: TestService;
  let shortLived: string;
  let exp: number;
  before(async () => {
    svc = await startTestService();
    exp = Math.floor(Date.now() / 1000) + 300;
    shortLived = await svc.token(`{"exp":${exp},"cmds":["ssh-key generate-api-key","whoami"]}`);
  });
  after(() => svc.stop());

  test('--exp never and an --exp past the token are refused (422), and nothing is made', async () => {
    for (const given of ['never', '1h', '30d']) {
      assert.deepEqual(await exec(svc, shortLived, `ssh-key generate-api-key --exp ${given}`), {
        status: 422,
        body: {
          error: `--exp "${given}" ends after this request's token expires (${rfc3339(exp)}): use a shorter --exp, or a token that lives longer`,
        },
      });
    }
    assert.equal(svc.service.store.listKeys(1).length, 1);
  });

  test("--exp left out is cut to the token's exp, and so is what that key makes", async () => {
    const made = await exec(svc, shortLived, 'ssh-key generate-api-key --label child');
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.equal(made.body.expires_at, rfc3339(exp));
    const child = made.body.token!;
    assert.equal((await exec(svc, child, 'whoami')).status, 200);
    const never = await exec(svc, child, 'ssh-key generate-api-key --label grandchild --exp never');
    assert.equal(never.status, 422);
    const grandchild = await exec(svc, child, 'ssh-key generate-api-key --label grandchild');
    assert.equal(grandchild.body.expires_at, rfc3339(exp));
  });

  test('an --exp within the token is kept as asked', async () => {
    const made = await exec(svc, shortLived, 'ssh-key generate-api-key --label brief --exp 1m');
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const expiresAt = Date.parse(made.body.expires_at!) / 1000;
    assert.ok(expiresAt <= exp && expiresAt >= exp - 300, made.body.expires_at!);
  });

  test('a token without exp still grants never', async () => {
    const forever = await svc.token('{"cmds":["ssh-key generate-api-key"]}');
    const made = await exec(svc, forever, 'ssh-key generate-api-key --label forever --exp never');
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.equal(made.body.expires_at, null);
  });
});
