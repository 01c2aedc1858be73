// `exectl serve` as a user starts it: the banner, a real request with curl and a shell-recipe
// token, the request log, a clean stop on SIGTERM and SIGINT, the ephemeral folder removed.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { generateKey, run, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt } from './harness.js';
import {
  TEST_FLAGS,
  bannerValue,
  curlExec,
  recipeToken,
  startServe,
  stopAll,
  type ServeProcess,
} from './serve-server.js';

let dir: TempDir;
let key: GeneratedKey;
let fingerprint: string;
let server: ServeProcess;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-serve');
  key = await generateKey(dir.path, 'ed25519', { name: 'me', comment: 'me@laptop' });
  fingerprint = (await run('ssh-keygen', ['-lf', key.pubPath])).stdout.split(' ')[1]!;
  // An `exectl` on PATH (as `npm install -g .` puts it): the banner's first command uses it.
  const bin = join(dir.path, 'bin');
  await mkdir(bin);
  await writeFile(join(bin, 'exectl'), '#!/bin/sh\n', { mode: 0o755 });
  server = await startServe(
    ['--ephemeral', ...TEST_FLAGS, '--owner', 'me@example.com', '--authorized-key', key.pubPath],
    { home: dir.path, env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` } },
  );
});
after(async () => {
  await stopAll();
  await dir.remove();
});

test('the banner: actual addresses, runtime warning, owner, key, first command', () => {
  const port = /^http:\/\/127\.0\.0\.1:(\d+)$/.exec(server.url)?.[1];
  assert.ok(port !== undefined && Number(port) > 0, server.url);
  assert.match(server.dataDir, /\/exectl-serve-[A-Za-z0-9]{6}$/);
  const reflection = bannerValue(server.stderr(), 'Reflection');
  assert.match(reflection, /^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
  const link = /^ {2}Dashboard: {2}(\S+)$/m.exec(server.stderr())?.[1] ?? '';
  assert.match(link, new RegExp(`^${server.url}/_/signin/[A-Za-z0-9_-]{43}$`));
  assert.equal(
    server.stderr(),
    [
      'exectl serve is ready',
      '',
      `  HTTP        ${server.url}  (/exec, the VM proxy and the dashboard)`,
      '  SSH         off',
      `  Reflection  ${reflection}`,
      // The suite's servers run with EXECTL_SMTP_LISTEN=off (serve-server.ts).
      '  SMTP        off',
      `  Data        ${server.dataDir}  (ephemeral: deleted when the server stops)`,
      '  Runtime     process',
      '  Rate limit  60 requests per 60s for each key  (the default)',
      '              --rate-limit N/DURATION changes it; --rate-limit 0 turns it off',
      '  Owner       me@example.com  (account created now)',
      `  Keys        ${fingerprint}  me@laptop`,
      '',
      '  WARNING: VM runtime "process": NO ISOLATION.',
      '  Commands run in VMs are plain processes of your user: they can read and',
      '  change all your files. Use --runtime bwrap where bubblewrap works.',
      '',
      `  Try:  exectl run --url ${server.url} whoami`,
      `  Dashboard:  ${link}`,
      `  (signs in as me@example.com: once, within 15 minutes; a new one: exectl run --url ${server.url} browser)`,
      '',
      'Ctrl-C stops the server.',
      '',
    ].join('\n'),
  );
  assert.equal(server.stdout(), '', 'stdout stays clean');
});

test("the banner's dashboard link signs the owner in, once (SPEC §11)", async () => {
  const link = /^ {2}Dashboard: {2}(\S+)$/m.exec(server.stderr())?.[1] ?? '';
  const first = await fetch(link, { redirect: 'manual' });
  assert.equal(first.status, 303);
  assert.equal(first.headers.get('location'), '/_/');
  const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0]!;
  const who = await fetch(`${server.url}/_/api/exec`, {
    method: 'POST',
    headers: { Cookie: cookie, Origin: server.url },
    body: 'whoami',
  });
  assert.equal(who.status, 200);
  assert.equal(((await who.json()) as { email: string }).email, 'me@example.com');
  assert.equal((await fetch(link, { redirect: 'manual' })).status, 401);
});

test('the banner names the rate limit in force, where it came from and how to change it', async () => {
  const cases: [string[], Record<string, string>, string, string][] = [
    [
      ['--rate-limit', '0'],
      {},
      'off  (--rate-limit)',
      '--rate-limit N/DURATION turns it on, e.g. 60/60s',
    ],
    [
      [],
      { EXECTL_RATE_LIMIT: '1/500ms' },
      '1 request per 500ms for each key  (EXECTL_RATE_LIMIT)',
      '--rate-limit N/DURATION changes it; --rate-limit 0 turns it off',
    ],
  ];
  for (const [args, env, limit, change] of cases) {
    const other = await startServe(
      ['--ephemeral', ...TEST_FLAGS, '--owner', 'me@example.com', ...args],
      { home: dir.path, env },
    );
    const lines = other.stderr().split('\n');
    const at = lines.indexOf(`  Rate limit  ${limit}`);
    assert.ok(at > 0, other.stderr());
    assert.equal(lines[at + 1], `              ${change}`);
    await other.stop();
  }
});

test('curl with a shell-recipe token: whoami answers the owner; one log line, no token', async () => {
  const token = await recipeToken(key, ['whoami']);
  const before = server.stderr().length;
  const answer = await curlExec(server.url, token, 'whoami');
  assert.equal(answer.status, 200, answer.body);
  const body = JSON.parse(answer.body) as { user_id: string };
  assert.match(body.user_id, /^usr_[a-z2-7]{16}$/);
  assert.deepEqual(body, {
    email: 'me@example.com',
    user_id: body.user_id,
    region: 'local',
    region_display: 'Local',
    ssh_keys: [{ name: 'me@laptop', fingerprint, public_key: key.publicKeyLine, current: true }],
  });

  const line = await server.waitForLine(/ cmd="whoami" /, before);
  assert.match(
    line,
    new RegExp(
      `^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z req=[0-9a-f]+ via=http key=${fingerprint.replace(/[+/]/g, '\\$&')} cmd="whoami" status=200 ms=\\d+\\.\\d$`,
    ),
  );
  assert.equal(server.stderr().slice(before), `${line}\n`, 'exactly one line for the request');
  assert.ok(!server.stderr().includes(token.slice(5, 40)), 'no token in the logs');
});

test('SIGTERM: exit 0, "stopped", the ephemeral folder is gone', async () => {
  assert.ok(existsSync(server.dataDir));
  const { code, signal } = await server.stop('SIGTERM');
  assert.deepEqual({ code, signal }, { code: 0, signal: null });
  assert.match(
    server.stderr(),
    /\nexectl: SIGTERM: stopping — finishing running commands \(again to force\)\nexectl: stopped\n$/,
  );
  assert.equal(existsSync(server.dataDir), false);
});

test('SIGINT (Ctrl-C) stops it the same way', async () => {
  const second = await startServe(['--ephemeral', ...TEST_FLAGS, '--owner', 'me@example.com'], {
    home: dir.path,
  });
  const { code } = await second.stop('SIGINT');
  assert.equal(code, 0);
  assert.match(second.stderr(), /\nexectl: SIGINT: stopping .*\nexectl: stopped\n$/);
  assert.equal(existsSync(second.dataDir), false);
});

test('a second signal forces the exit while a request holds the graceful stop', async () => {
  const third = await startServe(
    ['--ephemeral', ...TEST_FLAGS, '--owner', 'me@example.com', '--authorized-key', key.pubPath],
    { home: dir.path },
  );
  // A request whose body never finishes: the graceful stop waits for it (up to its grace).
  const token = await recipeToken(key, ['whoami']);
  const { port } = new URL(third.url);
  const socket = connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  socket.on('error', () => {});
  socket.write(
    `POST /exec HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Length: 100\r\n\r\nwho`,
  );
  const stopping = third.stderr().length;
  third.child.kill('SIGINT');
  await third.waitForLine(/^exectl: SIGINT: stopping/, stopping);
  const { code, signal } = await third.stop('SIGINT');
  socket.destroy();
  assert.deepEqual({ code, signal }, { code: null, signal: 'SIGINT' });
  assert.match(third.stderr(), /\nexectl: forced to stop\n$/);
  assert.equal(existsSync(third.dataDir), false);
});
