// A streamed `ssh <vm>` answer (past 1 MiB) announces `Trailer: X-Exec-Exit` and must always
// send it (SPEC §2): undici's fetch rejects a body whose announced trailer never comes. Read to
// the end with fetch, and with undici's request for the trailer's value, through a deadline,
// the VM's removal and the server's shutdown.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { fetch, request } from 'undici';
import { startTestService, type TestService } from '../../helpers/service.js';

const FAR = 4_000_000_000;
/** Past the 1 MiB held back for a header: the answer streams. */
const BIG = 2_000_000;
const STREAM_THEN_WAIT = `ssh vm1 'head -c ${BIG} /dev/zero; sleep 60'`;

interface Streamed {
  status: number;
  trailer: string | undefined;
  bytes: number;
  exit: string | undefined;
}

/** Sends `line` twice: fetch must read the body to its end, request reports the trailer. */
async function run(svc: TestService, token: string, line: string, whileStreaming = async () => {}) {
  const init = { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: line };
  const viaFetch = (async (): Promise<Streamed> => {
    const res = await fetch(`${svc.url}/exec`, init);
    const reading = res.arrayBuffer();
    return {
      status: res.status,
      trailer: res.headers.get('trailer') ?? undefined,
      bytes: (await reading).byteLength,
      exit: undefined,
    };
  })();
  const viaRequest = (async (): Promise<Streamed> => {
    const res = await request(`${svc.url}/exec`, init);
    const bytes = (await res.body.arrayBuffer()).byteLength;
    return {
      status: res.statusCode,
      trailer: res.headers.trailer as string | undefined,
      bytes,
      exit: res.trailers['x-exec-exit'],
    };
  })();
  await sleep(1_000);
  await whileStreaming();
  return Promise.all([viaFetch, viaRequest]);
}

/** A command whose answer is not streamed, as setup. */
async function setup(svc: TestService, token: string, line: string) {
  const res = await request(`${svc.url}/exec`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: line,
  });
  assert.equal(res.statusCode, 200, await res.body.text());
  await res.body.dump();
}

function assertStreamed([fetched, requested]: Streamed[], exit: string) {
  for (const r of [fetched!, requested!]) {
    assert.equal(r.status, 200);
    assert.equal(r.trailer, 'X-Exec-Exit');
    assert.equal(r.bytes, BIG);
  }
  assert.equal(requested!.exit, exit);
}

describe('streamed answers always end with their trailer', () => {
  let svc: TestService;
  let token: string;
  before(async () => {
    svc = await startTestService({ commandDeadlineMs: 4_000 });
    token = await svc.token(`{"exp":${FAR},"cmds":["new","ssh","rm"]}`);
    await setup(svc, token, 'new --name vm1');
  });
  after(() => svc.stop());

  test('an exit code', async () => {
    assertStreamed(await run(svc, token, `ssh vm1 'head -c ${BIG} /dev/zero; exit 3'`), '3');
  });

  test('the deadline: 124, as timeout(1) reports it', async () => {
    assertStreamed(await run(svc, token, STREAM_THEN_WAIT), '124');
  });

  test('the VM removed under the command: the status it was killed with', async () => {
    const answers = await run(svc, token, STREAM_THEN_WAIT, () => setup(svc, token, 'rm vm1'));
    assertStreamed(answers, '137');
  });
});

test('server shutdown cuts a streamed command off with 255 in the trailer', async () => {
  const svc = await startTestService();
  try {
    const token = await svc.token(`{"exp":${FAR},"cmds":["new","ssh"]}`);
    await setup(svc, token, 'new --name vm1');
    assertStreamed(await run(svc, token, STREAM_THEN_WAIT, () => svc.service.close()), '255');
  } finally {
    await svc.stop();
  }
});
