// InFlightCommands with real node:http servers and clients: the 'close' events it relies on are
// Node's own, so they are not faked here.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InFlightCommands } from '../../../../src/service/http/in-flight.js';
import type { StopSubscription } from '../../../../src/service/dispatch/stop.js';

/** One request as the server saw it, with the subscription `track` gave for it. */
interface Arrival {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  subscribe: StopSubscription;
}

interface Harness {
  shutdown: AbortController;
  /** Sends a request; resolves once the server has tracked it. */
  send(): Promise<{ client: http.ClientRequest; arrival: Arrival }>;
}

const cleanups: (() => Promise<void>)[] = [];

after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** A real server on 127.0.0.1 whose handler tracks each request and never answers by itself. */
async function startHarness(): Promise<Harness> {
  const shutdown = new AbortController();
  const inFlight = new InFlightCommands(shutdown.signal);
  const waiting: ((arrival: Arrival) => void)[] = [];
  const clients: http.ClientRequest[] = [];
  const server = http.createServer((req, res) => {
    const subscribe = inFlight.track(res);
    req.on('error', () => {});
    req.resume();
    waiting.shift()?.({ req, res, subscribe });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  cleanups.push(async () => {
    for (const client of clients) client.destroy();
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });
  return {
    shutdown,
    async send() {
      const arrived = new Promise<Arrival>((resolve) => waiting.push(resolve));
      // One socket per request (no keep-alive pool), so each test controls its own connection.
      const client = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/exec' });
      clients.push(client);
      // Destroying a request before its response makes the client emit 'socket hang up'.
      client.on('error', () => {});
      client.end('whoami');
      return { client, arrival: await arrived };
    },
  };
}

/** A stop callback that records every reason it is called with. */
function recorder() {
  const reasons: unknown[] = [];
  return { reasons, stop: (reason: unknown) => void reasons.push(reason) };
}

function assertClientDisconnected(reason: unknown): void {
  assert.ok(reason instanceof Error);
  assert.equal(reason.message, 'client disconnected');
}

test('a request answered normally never stops its command, even once its socket closes', async () => {
  const harness = await startHarness();
  const { client, arrival } = await harness.send();
  const { reasons, stop } = recorder();
  arrival.subscribe(stop);
  assert.deepEqual(reasons, [], 'nothing happened yet');

  const response = once(client, 'response') as Promise<[http.IncomingMessage]>;
  const socketClosed = once(arrival.req.socket, 'close');
  const resClosed = once(arrival.res, 'close');
  arrival.res.writeHead(200, { Connection: 'close' });
  arrival.res.end('ok');
  const [incoming] = await response;
  incoming.resume();
  await once(incoming, 'end');
  await resClosed;
  await socketClosed;
  assert.equal(arrival.res.writableFinished, true);
  assert.deepEqual(reasons, [], 'a finished response is not a client hang-up');
});

test('the client hanging up before the answer is finished stops the command once', async () => {
  const harness = await startHarness();
  const { client, arrival } = await harness.send();
  const { reasons, stop } = recorder();
  arrival.subscribe(stop);
  // Part of the answer is out, but it is not finished.
  arrival.res.writeHead(200);
  arrival.res.write('partial');

  const resClosed = once(arrival.res, 'close');
  client.destroy();
  // track's own 'close' listener was added first, so it has run by the time this one does.
  await resClosed;
  assert.equal(arrival.res.writableFinished, false);
  assert.equal(reasons.length, 1);
  assertClientDisconnected(reasons[0]);

  // A shutdown afterwards finds nothing left to stop: a stop is called once at most.
  harness.shutdown.abort(new Error('shutdown'));
  assert.equal(reasons.length, 1);
});

test('a subscription made after the client went away stops at once: client disconnected', async () => {
  const harness = await startHarness();
  const { client, arrival } = await harness.send();
  const resClosed = once(arrival.res, 'close');
  client.destroy();
  await resClosed;

  const { reasons, stop } = recorder();
  const unsubscribe = arrival.subscribe(stop);
  assert.equal(reasons.length, 1, 'called synchronously, during subscribe');
  assertClientDisconnected(reasons[0]);
  unsubscribe();
  assert.equal(reasons.length, 1);
});

test('shutdown stops every command in flight with its reason; later ones stop at once', async () => {
  const harness = await startHarness();
  const first = await harness.send();
  const second = await harness.send();
  const late = await harness.send();
  const one = recorder();
  const two = recorder();
  first.arrival.subscribe(one.stop);
  second.arrival.subscribe(two.stop);

  const reason = new Error('server shutting down');
  harness.shutdown.abort(reason);
  assert.equal(one.reasons.length, 1);
  assert.equal(one.reasons[0], reason);
  assert.equal(two.reasons.length, 1);
  assert.equal(two.reasons[0], reason);

  // Its request arrived before the shutdown, but subscribes only after it.
  const three = recorder();
  late.arrival.subscribe(three.stop);
  assert.equal(three.reasons.length, 1, 'called synchronously, during subscribe');
  assert.equal(three.reasons[0], reason);

  // A request that arrives after the shutdown is stopped at once too.
  const latecomer = await harness.send();
  const four = recorder();
  latecomer.arrival.subscribe(four.stop);
  assert.deepEqual(four.reasons, [reason]);
});

test('unsubscribe removes the stop: neither shutdown nor a hang-up calls it afterwards', async () => {
  const harness = await startHarness();
  const { client, arrival } = await harness.send();
  const { reasons, stop } = recorder();
  const unsubscribe = arrival.subscribe(stop);
  unsubscribe();

  harness.shutdown.abort(new Error('server shutting down'));
  assert.deepEqual(reasons, []);

  const resClosed = once(arrival.res, 'close');
  client.destroy();
  await resClosed;
  assert.deepEqual(reasons, []);
});
