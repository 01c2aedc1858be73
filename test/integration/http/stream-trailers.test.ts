// A streamed `ssh <vm>` answer (past 1 MiB) announces `Trailer: X-Exec-Exit` and must always
// send it (SPEC §2): undici's fetch rejects a body whose announced trailer never comes. Read to
// the end with fetch, and with undici's request for the trailer's value, through a deadline,
// the VM's removal and the server's shutdown.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
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

/**
 * Sends `line` twice: fetch must read the body to its end, request reports the trailer.
 * `whileStreaming` runs once both clients have read all `BIG` bytes of output, while the
 * command still runs (a cut before then would also cut the output short).
 */
async function run(svc: TestService, token: string, line: string, whileStreaming = async () => {}) {
  const init = { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: line };
  const arrived: (() => void)[] = [];
  const outputIn = [0, 1].map(() => new Promise<void>((resolve) => arrived.push(resolve)));
  const counted = (which: number) => {
    let bytes = 0;
    return (chunk: Uint8Array) => {
      bytes += chunk.byteLength;
      if (bytes >= BIG) arrived[which]!();
      return bytes;
    };
  };
  const viaFetch = (async (): Promise<Streamed> => {
    const res = await fetch(`${svc.url}/exec`, init);
    const count = counted(0);
    let bytes = 0;
    for await (const chunk of res.body!) bytes = count(chunk);
    return {
      status: res.status,
      trailer: res.headers.get('trailer') ?? undefined,
      bytes,
      exit: undefined,
    };
  })();
  const viaRequest = (async (): Promise<Streamed> => {
    const res = await request(`${svc.url}/exec`, init);
    const count = counted(1);
    let bytes = 0;
    for await (const chunk of res.body) bytes = count(chunk as Buffer);
    return {
      status: res.statusCode,
      trailer: res.headers.trailer as string | undefined,
      bytes,
      exit: res.trailers['x-exec-exit'],
    };
  })();
  // A client that fails first rejects here rather than leaving the wait hanging.
  await Promise.race([Promise.all(outputIn), Promise.all([viaFetch, viaRequest])]);
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
    token = await svc.token(`{"exp":${FAR},"cmds":["new","ssh"]}`);
    await setup(svc, token, 'new --name vm1');
  });
  after(() => svc.stop());

  test('an exit code', async () => {
    assertStreamed(await run(svc, token, `ssh vm1 'head -c ${BIG} /dev/zero; exit 3'`), '3');
  });

  test('the deadline: 124, as timeout(1) reports it', async () => {
    assertStreamed(await run(svc, token, STREAM_THEN_WAIT), '124');
  });
});

// With the default deadline: however long `rm` takes, the command cannot reach it first.
test('the VM removed under the command: the status it was killed with', async () => {
  const svc = await startTestService();
  try {
    const token = await svc.token(`{"exp":${FAR},"cmds":["new","ssh","rm"]}`);
    await setup(svc, token, 'new --name vm1');
    const answers = await run(svc, token, STREAM_THEN_WAIT, () => setup(svc, token, 'rm vm1'));
    assertStreamed(answers, '137');
  } finally {
    await svc.stop();
  }
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
