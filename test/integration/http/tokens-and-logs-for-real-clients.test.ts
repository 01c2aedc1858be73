// What a provider written for the real service does with tokens, and what the operator sees
// when a request is refused (SPEC §3, §7): `generate-api-key --cmds` takes the real service's
// command names, also those this server lacks; under `--compat exe.dev` its token is `exe1.`;
// a refused command's log line carries its one-line message, never a token. Real curl.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestService } from '../../helpers/service.js';
import { curlExec } from '../../helpers/curl-exec.js';

const FAR = 4_000_000_000;

describe('without --compat', () => {
  const svc = useTestService();

  test('--cmds with the real service names: the token is made; its missing commands are 404', async () => {
    // The request's token holds what it delegates, the real service's names too.
    const cmds = [
      'ssh-key generate-api-key',
      'ls',
      'new',
      'domain',
      'share receive-email',
      'billing plan',
    ];
    const t = await svc.token(JSON.stringify({ exp: FAR, cmds }));
    const made = await curlExec(
      svc.url,
      t,
      "ssh-key generate-api-key --label=prov --cmds='ls,new,domain,share receive-email,billing plan'",
    );
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const { token } = made.body as { token: string };
    assert.match(token, /^svc1\.[A-Z2-7]{26}$/);
    assert.equal((await curlExec(svc.url, token, 'ls')).status, 200);
    assert.deepEqual(await curlExec(svc.url, token, 'billing plan'), {
      status: 404,
      body: { error: 'unknown command: billing' },
    });
    assert.deepEqual(await curlExec(svc.url, t, 'ssh-key generate-api-key --cmds=lss'), {
      status: 422,
      body: { error: 'unknown command in --cmds: "lss"' },
    });
  });

  test('a refused command logs its message; a token sent as the command line is not logged', async () => {
    const t = await svc.token(`{"exp":${FAR},"cmds":["new"]}`);
    assert.equal((await curlExec(svc.url, t, 'new --frob')).status, 422);
    const refused = svc.logs.find((l) => / cmd="new" status=422 /.test(l));
    assert.ok(refused !== undefined, svc.logs.join('\n'));
    assert.match(refused, / message="unknown flag \\"--frob\\""( |$)/);

    assert.equal((await curlExec(svc.url, t, t)).status, 404);
    const unknown = svc.logs.filter((l) => / status=404 /.test(l)).at(-1);
    assert.ok(unknown !== undefined, svc.logs.join('\n'));
    assert.match(unknown, / message="unknown command: <token>"/);
    const [, signature] = t.split('.').slice(1);
    assert.ok(!svc.logs.some((l) => l.includes(signature!)), 'no log line holds the token');
  });
});

describe('--compat exe.dev', () => {
  const svc = useTestService({ compat: 'exe.dev', domain: 'exe.dev' });

  test('generate-api-key answers exe1., which the server accepts', async () => {
    const svc0 = await svc.token(`{"exp":${FAR},"cmds":["ssh-key generate-api-key","whoami"]}`);
    const made = await curlExec(svc.url, svc0, 'ssh-key generate-api-key --label=ci --cmds=whoami');
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const { token } = made.body as { token: string };
    assert.match(token, /^exe1\.[A-Z2-7]{26}$/);
    assert.equal((await curlExec(svc.url, token, 'whoami')).status, 200);
  });
});
