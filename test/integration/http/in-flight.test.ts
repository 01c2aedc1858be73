// A running /exec command is stopped when its client hangs up, and answered 503 when the server
// shuts down under it; either way its processes are gone (SPEC §2, §7 graceful shutdown).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { startTestService, type TestService } from '../../helpers/service.js';

const FAR = 4_000_000_000;

function post(svc: TestService, token: string, line: string, signal?: AbortSignal) {
  return request(`${svc.url}/exec`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: line,
    ...(signal === undefined ? {} : { signal }),
  });
}

/** How many host processes run exactly `args` (e.g. `sleep 4321`). */
function running(args: string): number {
  return execFileSync('ps', ['-eo', 'args'])
    .toString()
    .split('\n')
    .filter((l) => l === args).length;
}

/** Polls (bounded) until `running(args)` is `count`; returns the last count seen. */
async function waitForCount(args: string, count: number): Promise<number> {
  let seen = running(args);
  for (let i = 0; i < 200 && seen !== count; i++) {
    await sleep(25);
    seen = running(args);
  }
  return seen;
}

let svc: TestService;
let token: string;
before(async () => {
  svc = await startTestService();
  token = await svc.token(`{"exp":${FAR},"cmds":["new","ssh"]}`);
  const created = await post(svc, token, 'new --name vm1');
  assert.equal(created.statusCode, 200, await created.body.text());
});
after(() => svc.stop());

test('a client hanging up stops its command: the VM process is killed', async () => {
  const client = new AbortController();
  const pending = post(svc, token, "ssh vm1 'sleep 4321'", client.signal);
  // The answer streams only when output comes; so nothing has arrived yet.
  assert.equal(await waitForCount('sleep 4321', 1), 1, 'the command started');
  client.abort();
  await assert.rejects(pending, { name: 'AbortError' });
  assert.equal(await waitForCount('sleep 4321', 0), 0, 'the command was stopped');
  // The server carries on answering.
  const whoami = await post(svc, token, 'ssh vm1 echo still here');
  assert.equal(whoami.statusCode, 200);
  assert.equal(await whoami.body.text(), 'still here\n');
});

test('the server shutting down answers a running command 503 and stops it', async () => {
  const own = await startTestService();
  try {
    const ownToken = await own.token(`{"exp":${FAR},"cmds":["new","ssh"]}`);
    assert.equal((await post(own, ownToken, 'new --name vm2')).statusCode, 200);
    const pending = post(own, ownToken, "ssh vm2 'sleep 4322'");
    assert.equal(await waitForCount('sleep 4322', 1), 1, 'the command started');
    const closing = own.service.close();
    const res = await pending;
    assert.equal(res.statusCode, 503);
    assert.match(String(res.headers['x-request-id']), /^[0-9a-f]{16}$/);
    // So that the listener can close at once instead of waiting out the grace period.
    assert.equal(res.headers['connection'], 'close');
    assert.equal(res.headers['x-exec-error'], 'cut off by the server');
    assert.equal(await res.body.text(), '');
    await closing;
    assert.equal(await waitForCount('sleep 4322', 0), 0, 'the command was stopped');
  } finally {
    await own.stop();
  }
});
