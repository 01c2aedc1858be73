// `share access allow|disallow` (SPEC §3): the members of the owner's team ssh into the VM only
// while the owner allows it, at every ssh door — `ssh <vm>` over /exec, the lobby's `ssh <vm>`
// and `ssh vm+<vm>@host` — and nobody outside the team ever. Real OpenSSH, real curl-less fetch.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { run, type GeneratedKey } from '../../helpers/keys.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const FAR = 4_000_000_000;
let svc: TestService;
let mate: GeneratedKey;
let outsider: GeneratedKey;
let port: number;

const sshArgs = (user: string, command: string, key: GeneratedKey) => [
  ...['-F', '/dev/null', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no'],
  ...['-o', 'UserKnownHostsFile=/dev/null', '-o', 'IdentitiesOnly=yes', '-o', 'LogLevel=ERROR'],
  ...['-i', key.path, '-p', String(port), '-l', user, '127.0.0.1', command],
];

async function exec(line: string, key: GeneratedKey): Promise<{ status: number; body: string }> {
  const token = await svc.token(`{"exp":${FAR},"cmds":["ssh","share access"]}`, key);
  const res = await fetch(`${svc.url}/exec`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
    body: line,
  });
  return { status: res.status, body: await res.text() };
}

/** What each door answers `key` for `echo hi` in web. */
async function doors(key: GeneratedKey): Promise<string[]> {
  const http = await exec('ssh web echo hi', key);
  const lobby = await run('ssh', sshArgs('me', 'ssh web echo hi', key));
  const session = await run('ssh', sshArgs('vm+web', 'echo hi', key));
  return [
    `${http.status} ${http.body}`,
    `${lobby.code} ${lobby.stdout}${lobby.stderr}`,
    `${session.code === 0 ? 0 : 'refused'} ${session.code === 0 ? session.stdout : ''}`,
  ];
}

const REFUSED = [
  '422 {"error":"vm \\"web\\" not found"}\n',
  '1 error: vm "web" not found\n',
  'refused ',
];
const ALLOWED = ['200 hi\n', '0 hi\n', '0 hi\n'];

before(async () => {
  svc = await startTestService({ sshListen: { host: '127.0.0.1', port: 0 } });
  port = svc.service.endpoints.ssh!.port;
  const made = await run('ssh', sshArgs('me', 'new --name web --json', svc.owner.key));
  assert.equal(made.code, 0, made.stderr);
  mate = await svc.addAccount('mate@example.com');
  outsider = await svc.addAccount('outsider@example.com');
  const { store } = svc.service;
  const owner = store.findAccountByEmail('owner@example.com')!;
  const team = store.getTeamOfAccount(owner.id)!.team;
  store.addTeamMember(team.id, store.findAccountByEmail('mate@example.com')!.id);
});
after(() => svc?.stop());

test('a team member is refused at every door until the owner allows it', async () => {
  assert.deepEqual(await doors(mate), REFUSED);
  const allowed = await exec('share access allow web', svc.owner.key);
  assert.equal(allowed.status, 200, allowed.body);
  assert.deepEqual(JSON.parse(allowed.body), { vm_name: 'web', team_access: 'allowed' });
  assert.deepEqual(await doors(mate), ALLOWED);
  // Nobody outside the team; the member cannot change it (SSH opens, nothing else: it still
  // does not see the VM in the commands).
  assert.deepEqual(await doors(outsider), REFUSED);
  const byMate = await exec('share access disallow web', mate);
  assert.equal(byMate.status, 422);
  assert.deepEqual(JSON.parse(byMate.body), { error: 'vm "web" not found' });
});

test('disallowed again, or once the member left the team, every door refuses', async () => {
  assert.deepEqual(await doors(mate), ALLOWED);
  const { store } = svc.service;
  const team = store.getTeamOfAccount(store.findAccountByEmail('owner@example.com')!.id)!.team;
  store.removeTeamMember(team.id, store.findAccountByEmail('mate@example.com')!.id);
  assert.deepEqual(await doors(mate), REFUSED);
  store.addTeamMember(team.id, store.findAccountByEmail('mate@example.com')!.id);
  assert.deepEqual(await doors(mate), ALLOWED);
  const off = await exec('share access disallow web', svc.owner.key);
  assert.deepEqual(JSON.parse(off.body), { vm_name: 'web', team_access: 'disallowed' });
  assert.deepEqual(await doors(mate), REFUSED);
  const odd = await exec('share access maybe web', svc.owner.key);
  assert.deepEqual(JSON.parse(odd.body), {
    error: 'unknown access "maybe": use allow or disallow',
  });
});
