// What the sandbox adds to a request: `ssh vm1 true` against `whoami`, both over /exec on one
// keep-alive connection, one request at a time, in the same run against the same service
// (bwrap runtime). Target: the sandbox adds at most 25 ms at p50. Needs `npm run build` first.
import { mintSvc0 } from '../src/token/mint.js';
import { createMemorySigner } from '../test/helpers/signers.js';
import { fmt, loadTest, startServer } from './lib/load.js';

const signer = createMemorySigner('ed25519');
const token = await mintSvc0(`{"exp":4000000000,"cmds":["whoami","ssh"]}`, signer, 'v0@localhost');
const server = await startServer(new URL('./servers/exec-service.mjs', import.meta.url).pathname, [
  JSON.stringify({
    publicKey: signer.publicKey.toOpenSsh(),
    fingerprint: signer.publicKey.fingerprint,
    keyType: signer.publicKey.type,
    runtime: 'bwrap',
    vm: 'vm1',
  }),
]);

try {
  const run = (body: string, durationMs: number) =>
    loadTest({
      url: server.url,
      path: '/exec',
      body,
      headers: { authorization: `Bearer ${token}` },
      connections: 1,
      durationMs,
    });
  await run('whoami', 500);
  await run('ssh vm1 true', 1000);
  const whoami = await run('whoami', 3000);
  const sandbox = await run('ssh vm1 true', 3000);
  const added = sandbox.p50 - whoami.p50;
  console.log(`vm: whoami        ${fmt(whoami)}`);
  console.log(`vm: ssh vm1 true  ${fmt(sandbox)}`);
  console.log(
    `vm: the sandbox adds ${added.toFixed(2)} ms at p50, ${(sandbox.p99 - whoami.p99).toFixed(2)} ms at p99 (target ≤ 25 ms at p50)`,
  );
  process.exitCode = added <= 25 ? 0 : 1;
} finally {
  await server.stop();
}
