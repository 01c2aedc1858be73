// SPEC §11's promises about who gets what from the dashboard, over raw HTTP against a real
// service: the sign-in link (once, and only with the server's own Host), the session cookie's
// attributes, the Host allowlist (DNS rebinding), Origin on every state-changing request and on
// the terminal's WebSocket, nothing without a session, sessions that end with their key, and
// no link secret or session cookie in any log line. (Each failed on the code before the
// dashboard: every /_/ path answered 404.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { parsePublicKey } from '../../../src/token/keys.js';
import { generateKey } from '../../helpers/keys.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { askForLink, fromPage, raw, signIn } from './sign-in.js';

describe('dashboard security (SPEC §11)', () => {
  let svc: TestService;
  let host: string;
  before(async () => {
    svc = await startTestService();
    host = new URL(svc.url).host;
  });
  after(() => svc.stop());

  test('a link signs in once: HttpOnly SameSite=Strict cookie for /_/, then 303 to /_/', async () => {
    const link = await askForLink(svc);
    const answer = await raw(svc, 'GET', new URL(link).pathname);
    assert.equal(answer.status, 303);
    assert.equal(answer.headers.location, '/_/');
    const cookie = [answer.headers['set-cookie']].flat()[0]!;
    assert.match(
      cookie,
      /^exectl_session=[A-Za-z0-9_-]{43}; Path=\/_\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/,
    );
    const again = await raw(svc, 'GET', new URL(link).pathname);
    assert.equal(again.status, 401);
    assert.deepEqual(JSON.parse(again.body), {
      error: 'this sign-in link is not valid: used, expired or unknown',
    });
  });

  test('an unknown link is refused the same way', async () => {
    const answer = await raw(svc, 'GET', `/_/signin/${'A'.repeat(43)}`);
    assert.equal(answer.status, 401);
    assert.equal(answer.headers['set-cookie'], undefined);
  });

  test('a foreign Host is refused everywhere under /_/, and does not use the link up', async () => {
    const link = await askForLink(svc);
    const cookie = await signIn(svc, await askForLink(svc));
    for (const [method, path] of [
      ['GET', '/_/'],
      ['GET', '/_/app.js'],
      ['GET', new URL(link).pathname],
      ['POST', '/_/api/exec'],
    ] as const) {
      const answer = await raw(
        svc,
        method,
        path,
        { Host: 'attacker.example', Cookie: cookie, Origin: 'http://attacker.example' },
        method === 'POST' ? 'ls' : undefined,
      );
      assert.equal(answer.status, 403, `${method} ${path}`);
      assert.deepEqual(JSON.parse(answer.body), { error: 'this host name is not the dashboard' });
    }
    // Rebinding keeps the port: a foreign name with the right port is still foreign.
    const rebound = await raw(svc, 'GET', '/_/', { Host: `evil.example:${new URL(svc.url).port}` });
    assert.equal(rebound.status, 403);
    assert.equal((await raw(svc, 'GET', new URL(link).pathname)).status, 303);
  });

  test('state-changing requests need a matching Origin: none or a foreign one is 403', async () => {
    const cookie = await signIn(svc, await askForLink(svc));
    for (const origin of [undefined, 'http://attacker.example', 'null', `https://${host}`]) {
      const headers: Record<string, string> = { Cookie: cookie };
      if (origin !== undefined) headers.Origin = origin;
      const answer = await raw(svc, 'POST', '/_/api/exec', headers, 'new --name crossed');
      assert.equal(answer.status, 403, String(origin));
      assert.deepEqual(JSON.parse(answer.body), { error: 'request from another origin refused' });
    }
    const ok = await raw(svc, 'POST', '/_/api/exec', fromPage(svc, cookie), 'whoami');
    assert.equal(ok.status, 200, ok.body);
    assert.equal(JSON.parse(ok.body).email, 'owner@example.com');
    const ls = await raw(svc, 'POST', '/_/api/exec', fromPage(svc, cookie), 'ls');
    assert.deepEqual(JSON.parse(ls.body), { vms: [] });
  });

  test('without a session only the page, its assets and the sign-in answer; no account data', async () => {
    for (const path of ['/_/', '/_/app.js', '/_/app.css']) {
      const answer = await raw(svc, 'GET', path);
      assert.equal(answer.status, 200, path);
      assert.ok(!answer.body.includes('owner@example.com'), path);
      assert.ok(!answer.body.includes('svc0.'), path);
    }
    for (const api of ['exec', 'log', 'inspect', 'signout']) {
      const answer = await raw(svc, 'POST', `/_/api/${api}`, { Origin: svc.url }, 'whoami');
      assert.equal(answer.status, 401, api);
      assert.deepEqual(JSON.parse(answer.body), { error: 'not signed in' });
    }
    const forged = await raw(
      svc,
      'POST',
      '/_/api/exec',
      { Origin: svc.url, Cookie: `exectl_session=${'A'.repeat(43)}` },
      'whoami',
    );
    assert.equal(forged.status, 401);
    assert.equal((await raw(svc, 'GET', '/_/nothing-here')).status, 404);
  });

  test('the terminal WebSocket needs the session and a matching Origin', async () => {
    const cookie = await signIn(svc, await askForLink(svc));
    const wsUrl = `${svc.url.replace('http', 'ws')}/_/api/terminal?vm=web`;
    const refusal = (headers: Record<string, string>, origin?: string) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(wsUrl, { headers, ...(origin === undefined ? {} : { origin }) });
        ws.on('unexpected-response', (_req, res) => {
          resolve(res.statusCode!);
          res.resume();
        });
        ws.on('open', () => reject(new Error('the WebSocket opened')));
        ws.on('error', () => {});
      });
    assert.equal(await refusal({ Cookie: cookie }, 'http://attacker.example'), 403);
    assert.equal(await refusal({ Cookie: cookie }), 403);
    assert.equal(await refusal({}, svc.url), 401);
    const elsewhere = new WebSocket(`${svc.url.replace('http', 'ws')}/_/signin/${'A'.repeat(43)}`, {
      headers: { Cookie: cookie },
      origin: svc.url,
    });
    const status = await new Promise<number>((resolve) => {
      elsewhere.on('unexpected-response', (_req, res) => resolve(res.statusCode!));
      elsewhere.on('error', () => {});
    });
    assert.equal(status, 404);
    assert.ok(!svc.logs.some((l) => l.includes('A'.repeat(43))));
    // The right Origin and session: the dispatcher's own answer for a VM that does not exist.
    assert.equal(await refusal({ Cookie: cookie }, svc.url), 422);
  });

  test('a terminal frame past 64 KiB closes that terminal; the server goes on', async () => {
    const cookie = await signIn(svc, await askForLink(svc));
    const made = await raw(svc, 'POST', '/_/api/exec', fromPage(svc, cookie), 'new --name big');
    assert.equal(made.status, 200, made.body);
    const from = svc.logs.length;
    const ws = new WebSocket(`${svc.url.replace('http', 'ws')}/_/api/terminal?vm=big`, {
      headers: { Cookie: cookie },
      origin: svc.url,
    });
    ws.on('error', () => {});
    await once(ws, 'open');
    // An error nothing hears is an uncaught exception: `exectl serve` would end with it.
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    const closed = once(ws, 'close');
    // A paste of 70 KiB in one frame.
    ws.send(Buffer.alloc(70 * 1024, 0x61), { binary: true });
    const [code] = (await closed) as [number];
    await sleep(100);
    process.removeListener('uncaughtException', onUncaught);
    assert.deepEqual(uncaught, []);
    assert.equal(code, 1009, 'Message Too Big');
    assert.equal((await raw(svc, 'GET', '/healthz')).status, 200);
    const line = await logged(
      svc,
      (l) => l.includes('cmd="ssh"') && l.includes('via=dashboard'),
      from,
    );
    assert.match(line, / status=499 /);
  });

  test('a terminal handshake ws refuses ends the request: logged, nothing held', async () => {
    const cookie = await signIn(svc, await askForLink(svc));
    const made = await raw(svc, 'POST', '/_/api/exec', fromPage(svc, cookie), 'new --name shaky');
    assert.equal(made.status, 200, made.body);
    const from = svc.logs.length;
    // An upgrade with the session and Origin but no Sec-WebSocket-Key: ws answers 400 itself.
    const answer = await raw(svc, 'GET', '/_/api/terminal?vm=shaky', {
      ...fromPage(svc, cookie),
      Connection: 'Upgrade',
      Upgrade: 'websocket',
      'Sec-WebSocket-Version': '13',
    }).catch(() => ({ status: 0 }));
    assert.equal(answer.status, 400);
    const line = await logged(svc, (l) => l.includes('via=dashboard'), from);
    assert.match(line, /cmd="ssh" status=499 /);
  });

  test('two session cookies (one tossed in by another site of the domain) sign nobody in', async () => {
    const mine = await signIn(svc, await askForLink(svc));
    const other = await svc.addAccount('tosser@example.com');
    const theirs = await signIn(svc, await askForLink(svc, other));
    // The tossed one first, as a longer Path makes the browser send it.
    const both = `${theirs}; ${mine}`;
    const who = await raw(svc, 'POST', '/_/api/exec', fromPage(svc, both), 'whoami');
    assert.equal(who.status, 401);
    assert.deepEqual(JSON.parse(who.body), {
      error: 'not signed in: this browser sends two dashboard sessions',
    });
    // Each alone still works: nothing was ended.
    const alone = await raw(svc, 'POST', '/_/api/exec', fromPage(svc, mine), 'whoami');
    assert.equal(JSON.parse(alone.body).email, svc.owner.email);
  });

  test('a session runs exactly what the asking token may', async () => {
    const cookie = await signIn(svc, await askForLink(svc, svc.owner.key, ['browser', 'whoami']));
    const who = await raw(svc, 'POST', '/_/api/exec', fromPage(svc, cookie), 'whoami');
    assert.equal(who.status, 200);
    const ls = await raw(svc, 'POST', '/_/api/exec', fromPage(svc, cookie), 'ls');
    assert.equal(ls.status, 403);
    assert.deepEqual(JSON.parse(ls.body), { error: 'command not allowed: ls' });
  });

  test('a session ends when the key that asked for its link is removed', async () => {
    const second = await generateKey(svc.dir.path, 'ed25519', { name: 'second' });
    const pub = parsePublicKey(second.publicKeyLine);
    const owner = await svc.token('{"cmds":["ssh-key add","ssh-key remove"]}');
    const add = await raw(
      svc,
      'POST',
      '/exec',
      { Authorization: `Bearer ${owner}` },
      `ssh-key add --name second '${pub.toOpenSsh()}'`,
    );
    assert.equal(add.status, 200, add.body);
    const cookie = await signIn(svc, await askForLink(svc, second));
    assert.equal(
      (await raw(svc, 'POST', '/_/api/exec', fromPage(svc, cookie), 'whoami')).status,
      200,
    );
    const removed = await raw(
      svc,
      'POST',
      '/exec',
      { Authorization: `Bearer ${owner}` },
      `ssh-key remove ${pub.fingerprint}`,
    );
    assert.equal(removed.status, 200, removed.body);
    const after = await raw(svc, 'POST', '/_/api/exec', fromPage(svc, cookie), 'whoami');
    assert.equal(after.status, 401);
  });

  test('a dashboard request is logged like /exec, and the live log lists it', async () => {
    const cookie = await signIn(svc, await askForLink(svc));
    const bad = await raw(svc, 'POST', '/_/api/exec', fromPage(svc, cookie), 'rm no-such-vm');
    assert.equal(bad.status, 422);
    const line = svc.logs.find((l) => l.includes('via=dashboard') && l.includes('cmd="rm"'));
    assert.match(line ?? '', / key=SHA256:\S+ cmd="rm" status=422 ms=/);
    const log = await raw(svc, 'POST', '/_/api/log?since=0', fromPage(svc, cookie));
    const rows = (JSON.parse(log.body) as { requests: { command: string; status: number }[] })
      .requests;
    assert.ok(rows.some((r) => r.command === 'rm' && r.status === 422));
    assert.ok(rows.some((r) => r.command === 'browser' && r.status === 200));
  });

  test('no log line holds a link secret or a session cookie', async () => {
    const link = await askForLink(svc);
    const cookie = await signIn(svc, link);
    await raw(svc, 'GET', new URL(link).pathname);
    await raw(svc, 'POST', '/_/api/exec', fromPage(svc, cookie), 'whoami');
    const secret = new URL(link).pathname.split('/').pop()!;
    const session = cookie.split('=')[1]!;
    assert.ok(svc.logs.some((l) => / key=SHA256:\S+ cmd="GET \/_\/signin" status=303 /.test(l)));
    for (const line of svc.logs) {
      assert.ok(!line.includes(secret), line);
      assert.ok(!line.includes(session), line);
    }
  });
});

/** The first log line from `from` on that `matches`, waited for (bounded: 15 s). */
async function logged(svc: TestService, matches: (line: string) => boolean, from = 0) {
  for (let i = 0; i < 300; i++) {
    const line = svc.logs.slice(from).find(matches);
    if (line !== undefined) return line;
    await sleep(50);
  }
  throw new Error(`no such log line in:\n${svc.logs.slice(from).join('\n')}`);
}
