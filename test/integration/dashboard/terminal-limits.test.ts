// SPEC §7: dashboard terminals per session are bounded (8): the ninth WebSocket of one session is
// refused with 429 and one line, another session of the same account still opens its own, a
// closed terminal frees its place, and other requests keep answering meanwhile. Real service,
// real VM shells, real WebSockets (ws).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import WebSocket from 'ws';
import { TERMINALS_PER_SESSION } from '../../../src/service/dashboard/terminal.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { askForLink, fromPage, raw, signIn } from './sign-in.js';

/** Opens a terminal of `cookie`'s session: the socket once open, or the refusal's status and body. */
async function openTerminal(
  svc: TestService,
  cookie: string,
): Promise<{ ws: WebSocket } | { status: number; body: string }> {
  const ws = new WebSocket(`${svc.url.replace('http', 'ws')}/_/api/terminal?vm=web`, {
    headers: { Cookie: cookie },
    origin: svc.url,
  });
  ws.on('error', () => {});
  return new Promise((resolve) => {
    ws.once('open', () => resolve({ ws }));
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
  });
}

function opened(result: Awaited<ReturnType<typeof openTerminal>>): WebSocket {
  assert.ok('ws' in result, `refused: ${JSON.stringify(result)}`);
  return result.ws;
}

describe('dashboard terminals per session (SPEC §7)', () => {
  let svc: TestService;
  let cookie: string;
  const sockets: WebSocket[] = [];
  before(async () => {
    svc = await startTestService();
    cookie = await signIn(svc, await askForLink(svc));
    const made = await raw(svc, 'POST', '/_/api/exec', fromPage(svc, cookie), 'new --name web');
    assert.equal(made.status, 200, made.body);
  });
  after(async () => {
    for (const ws of sockets) ws.terminate();
    await svc.stop();
  });

  test('the ninth terminal of a session is 429; another session opens; a closed one frees a place', async () => {
    assert.equal(TERMINALS_PER_SESSION, 8);
    for (let i = 0; i < TERMINALS_PER_SESSION; i++) {
      sockets.push(opened(await openTerminal(svc, cookie)));
    }
    const refused = await openTerminal(svc, cookie);
    assert.ok(!('ws' in refused), 'the ninth opened');
    assert.equal(refused.status, 429);
    assert.deepEqual(JSON.parse(refused.body), {
      error: 'this session has 8 terminals open: close one to open another',
    });
    // The account's other session, and every other request, still answer.
    const other = await signIn(svc, await askForLink(svc));
    sockets.push(opened(await openTerminal(svc, other)));
    const who = await raw(svc, 'POST', '/_/api/exec', fromPage(svc, cookie), 'whoami');
    assert.equal(who.status, 200, who.body);
    assert.equal((await raw(svc, 'GET', '/healthz')).status, 200);

    // Closing one frees its place (once the server has seen it go: poll, never a fixed wait).
    const first = sockets.shift()!;
    const closed = once(first, 'close');
    first.close();
    await closed;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const again = await openTerminal(svc, cookie);
      if ('ws' in again) {
        sockets.push(again.ws);
        break;
      }
      assert.equal(again.status, 429);
      assert.ok(Date.now() < deadline, 'the closed terminal never freed its place');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});
