// `browser` over the SSH front end (SPEC §11): real OpenSSH asks for the link; the session it
// opens is the SSH caller's, which no token limits, so it may run any command.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../../helpers/keys.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { fromPage, raw, signIn } from './sign-in.js';

let svc: TestService;
before(async () => {
  svc = await startTestService({ sshListen: { host: '127.0.0.1', port: 0 } });
});
after(() => svc.stop());

test('browser over SSH gives a link whose session runs any command', async () => {
  const ssh = svc.service.endpoints.ssh!;
  const answer = await run('ssh', [
    ...['-p', String(ssh.port), '-i', svc.owner.key.path, '-o', 'IdentitiesOnly=yes'],
    ...[
      '-o',
      'StrictHostKeyChecking=no',
      '-o',
      'UserKnownHostsFile=/dev/null',
      '-o',
      'BatchMode=yes',
    ],
    ssh.host,
    'browser',
    '--json',
  ]);
  assert.equal(answer.code, 0, answer.stderr);
  const link = (JSON.parse(answer.stdout) as { magic_link: string }).magic_link;
  assert.match(link, new RegExp(`^${svc.url}/_/signin/[A-Za-z0-9_-]{43}$`));
  const cookie = await signIn(svc, link);
  // Not among a token's default commands: allowed because an SSH session is not limited.
  const added = await raw(svc, 'POST', '/_/api/exec', fromPage(svc, cookie), 'ssh-key add --help');
  assert.equal(added.status, 200, added.body);
  assert.equal(JSON.parse(added.body).name, 'ssh-key add');
  assert.ok(svc.logs.some((l) => / via=ssh key=SHA256:\S+ cmd="browser" status=200 /.test(l)));
});
