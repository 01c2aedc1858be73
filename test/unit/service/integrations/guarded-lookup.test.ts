// The check at use of integration targets (SPEC §6): the socket resolves its name through the
// guard and connects only to the addresses the guard checked, so a name that resolves to a
// private address — now, or only on the second asking (DNS rebinding) — reaches nothing. The
// resolver is swapped here for names no DNS knows; the service itself always uses the system's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { ExectlError } from '../../../../src/errors.js';
import { guardedConnection } from '../../../../src/service/integrations/guarded-lookup.js';
import { PRIVATE_TARGET_REASON } from '../../../../src/service/integrations/target-policy.js';

const REFUSED = `integration "api" refused: ${PRIVATE_TARGET_REASON}`;
/** TEST-NET-2: public by the rule, and nothing answers there (the tests stop at the attempt). */
const PUBLIC = '198.51.100.7';

/** A resolver answering `answers` in turn (the last one again once used up), counting calls. */
function scripted(...answers: string[][]) {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    return answers[Math.min(asked.length - 1, answers.length - 1)]!;
  };
  return { asked, resolve };
}

function guardedSocket(host: string, port: number, resolve: (h: string) => Promise<string[]>) {
  const guard = guardedConnection(new URL(`http://${host}:${port}/`), 'api', false, resolve);
  assert.ok(guard.lookup !== undefined, 'a name gets the guarded lookup');
  return connect({ host, port, lookup: guard.lookup });
}

/** The address the socket was handed to connect to (node's `lookup` event); then it is dropped. */
async function connectsTo(socket: Socket): Promise<string> {
  // Nothing answers there: a refusal arriving after the lookup is of no interest.
  socket.on('error', () => {});
  const [error, address] = (await once(socket, 'lookup')) as [Error | null, string];
  socket.destroy();
  assert.equal(error, null);
  return address;
}

/** The guard's refusal, or the failure `connected` when the socket got through. */
function refusal(socket: Socket): Promise<unknown> {
  return new Promise((resolve) => {
    socket.on('error', resolve);
    socket.on('connect', () => {
      socket.destroy();
      resolve(new Error('connected'));
    });
  });
}

test('a private literal is refused before any connection; a public one needs no lookup', () => {
  for (const host of ['127.0.0.1', '[::1]', '169.254.169.254', '[::ffff:7f00:1]', '0.0.0.0']) {
    assert.throws(
      () => guardedConnection(new URL(`http://${host}:80/`), 'api', false),
      (error: unknown) =>
        error instanceof ExectlError && error.status === 403 && error.message === REFUSED,
      host,
    );
  }
  assert.deepEqual(guardedConnection(new URL(`http://${PUBLIC}/`), 'api', false), {});
  assert.deepEqual(guardedConnection(new URL('http://127.0.0.1/'), 'api', true), {});
  assert.deepEqual(guardedConnection(new URL('http://localhost/'), 'api', true), {});
});

test('a name that resolves to a private address: refused, the server there never connected', async () => {
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  try {
    for (const answer of [['127.0.0.1'], [PUBLIC, '127.0.0.1'], ['::1'], ['::ffff:127.0.0.1']]) {
      const error = await refusal(guardedSocket('evil.test', port, scripted(answer).resolve));
      assert.ok(error instanceof ExectlError, String(error));
      assert.equal(error.status, 403);
      assert.equal(error.message, REFUSED);
    }
  } finally {
    server.close();
  }
  assert.equal(connections, 0);
});

test('rebinding: each connection asks again, and connects only where the check looked', async () => {
  const dns = scripted([PUBLIC], ['127.0.0.1']);
  assert.equal(await connectsTo(guardedSocket('rebind.test', 8080, dns.resolve)), PUBLIC);
  const error = await refusal(guardedSocket('rebind.test', 8080, dns.resolve));
  assert.ok(error instanceof ExectlError && error.message === REFUSED, String(error));
  assert.deepEqual(dns.asked, ['rebind.test', 'rebind.test']);
});

/** Calls a guarded lookup for `hostname` once, as node's socket does, and returns its answer. */
function ask(addresses: string[], options: { all?: boolean; family?: number }) {
  const { lookup } = guardedConnection(
    new URL('http://dual.test/'),
    'api',
    false,
    async () => addresses,
  );
  return new Promise<unknown[]>((resolve) =>
    lookup!('dual.test', options, (...answer: unknown[]) => resolve(answer)),
  );
}

test("the lookup answers in both of node's forms, and keeps to the family asked for", async () => {
  const both = [PUBLIC, '2001:db8::7'];
  assert.deepEqual(await ask(both, { all: true }), [
    null,
    [
      { address: PUBLIC, family: 4 },
      { address: '2001:db8::7', family: 6 },
    ],
  ]);
  assert.deepEqual(await ask(both, {}), [null, PUBLIC, 4]);
  assert.deepEqual(await ask(both, { family: 6 }), [null, '2001:db8::7', 6]);
  const [none] = await ask([PUBLIC], { family: 6, all: true });
  assert.equal((none as NodeJS.ErrnoException).code, 'ENOTFOUND');
});
