// What `exectl serve` logs of routine traffic (issue 28): a health check every few seconds and a
// WebSocket refused at the service's own address are logged at debug level only, with their
// path and Host; at the default level only real requests reach the log.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateKey, run, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt } from './harness.js';
import {
  TEST_FLAGS,
  curlExec,
  recipeToken,
  startServe,
  stopAll,
  type ServeProcess,
} from './serve-server.js';

let dir: TempDir;
let key: GeneratedKey;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-serve-logs');
  key = await generateKey(dir.path, 'ed25519', { name: 'me' });
});
after(async () => {
  await stopAll();
  await dir.remove();
});

/** A health check and a refused WebSocket, each with its status checked. */
async function routineTraffic(server: ServeProcess): Promise<void> {
  const status = async (args: string[]) =>
    (await run('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', ...args])).stdout;
  assert.equal(await status([`${server.url}/healthz`]), '200');
  const upgrade = [
    ...['-H', 'Connection: Upgrade', '-H', 'Upgrade: websocket'],
    ...['-H', 'Sec-WebSocket-Version: 13', '-H', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=='],
    ...['-H', 'Host: localhost:7070'],
  ];
  assert.equal(await status([...upgrade, `${server.url}/socket?x=1`]), '400');
}

/** A server with the owner's key, started with `args` added. */
function startWith(args: readonly string[]): Promise<ServeProcess> {
  return startServe(
    [
      ...['--ephemeral', ...TEST_FLAGS, '--owner', 'me@example.com'],
      ...['--authorized-key', key.pubPath, ...args],
    ],
    { home: dir.path },
  );
}

test('default level: health checks and refused upgrades leave no log line', async () => {
  const server = await startWith([]);
  const start = server.stderr().length;
  await routineTraffic(server);
  // A request that is logged, after them: once its line is there, theirs would be too.
  const answer = await curlExec(server.url, await recipeToken(key, ['whoami']), 'whoami');
  assert.equal(answer.status, 200, answer.body);
  const line = await server.waitForLine(/ cmd="whoami" /, start);
  assert.equal(server.stderr().slice(start), `${line}\n`);
  await server.stop();
});

test('--log-level debug: each with its path and Host', async () => {
  const server = await startWith(['--log-level', 'debug']);
  const start = server.stderr().length;
  await routineTraffic(server);
  const host = server.url.slice('http://'.length);
  // A refused request's line ends with the message its client got.
  const line = (cmd: string, hostShown: string, status: number, message = '') =>
    new RegExp(
      `^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z req=[0-9a-f]+ via=http key=- cmd="${cmd}" host="${hostShown}" status=${status} ms=\\d+\\.\\d${message}$`,
    );
  await server.waitForLine(line('GET /healthz', host, 200), start);
  await server.waitForLine(
    line(
      'GET /socket',
      'localhost:7070',
      400,
      ' message="protocol upgrade is only available on VM addresses"',
    ),
    start,
  );
  await server.stop();
});
