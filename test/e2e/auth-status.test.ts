// `exectl auth status` with the built CLI against a real service and a real ssh-agent: every
// key exectl would try, in order, with its source, the one that signs, and what the server
// says about each (SPEC §8). The case of the issue: an agent key silently winning over the key
// `serve` registered, until a request found the registered one.
import assert from 'node:assert/strict';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parsePublicKey } from '../../src/token/keys.js';
import { generateKey, startAgent, type GeneratedKey, type TestAgent } from '../helpers/keys.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { assertBuilt, exectl } from './harness.js';

let svc: TestService;
let home: string;
let stranger: GeneratedKey;
let agent: TestAgent;

before(async () => {
  assertBuilt();
  svc = await startTestService();
  home = svc.dir.join('home');
  await mkdir(join(home, '.ssh'), { recursive: true });
  await copyFile(svc.owner.key.path, join(home, '.ssh', 'id_ed25519'));
  stranger = await generateKey(svc.dir.path, 'ed25519', { name: 'stranger' });
  agent = await startAgent(svc.dir.path);
  await agent.add(stranger);
});
after(async () => {
  await agent.stop();
  await svc.stop();
});

const fp = (key: GeneratedKey) => parsePublicKey(key.publicKeyLine).fingerprint;

test('the registered key signs: exit 0, known to the server', async () => {
  const result = await exectl(['--url', svc.url, 'auth', 'status'], { home });
  const file = join(home, '.ssh', 'id_ed25519');
  assert.deepEqual(
    { code: result.code, stdout: result.stdout, stderr: result.stderr },
    {
      code: 0,
      stdout:
        `url:     ${svc.url}\n` +
        'profile: none\n' +
        'keys, in the order exectl tries them:\n' +
        `  * ${fp(svc.owner.key)}  file ${file}  known: owner@example.com, key "default"\n` +
        `signs:   key ${fp(svc.owner.key)} from file ${file} (marked *)\n`,
      stderr: '',
    },
  );
});

test('an agent key wins over ~/.ssh and the server does not know it: exit 3, said plainly', async () => {
  const env = { SSH_AUTH_SOCK: agent.socketPath };
  const file = join(home, '.ssh', 'id_ed25519');
  const result = await exectl(['--url', svc.url, 'auth', 'status'], { home, env });
  assert.deepEqual(
    { code: result.code, stdout: result.stdout, stderr: result.stderr },
    {
      code: 3,
      stdout:
        `url:     ${svc.url}\n` +
        'profile: none\n' +
        'keys, in the order exectl tries them:\n' +
        `  * ${fp(stranger)}  ssh-agent  not known to the server\n` +
        `    ${fp(svc.owner.key)}  file ${file}  known: owner@example.com, key "default"\n` +
        `signs:   key ${fp(stranger)} from ssh-agent (marked *)\n`,
      stderr: `exectl: the key that signs (${fp(stranger)}) is not known to ${svc.url} — pick a known key with --key, or register this one (ssh-key add, or \`exectl serve accounts add\` on the server)\n`,
    },
  );
  // A request falls back to the key the server knows (test/e2e/key-fallback.test.ts), which is
  // then remembered: auth status shows it first, as the key that signs.
  const cache = { ...env, XDG_CACHE_HOME: svc.dir.join('auth-status-cache') };
  const whoami = await exectl(['--url', svc.url, 'run', 'whoami'], { home, env: cache });
  assert.equal(whoami.code, 0, whoami.stderr);
  const after = await exectl(['--url', svc.url, 'auth', 'status'], { home, env: cache });
  assert.deepEqual(
    { code: after.code, stdout: after.stdout, stderr: after.stderr },
    {
      code: 0,
      stdout:
        `url:     ${svc.url}\n` +
        'profile: none\n' +
        'keys, in the order exectl tries them:\n' +
        `  * ${fp(svc.owner.key)}  file ${file}  known: owner@example.com, key "default"\n` +
        `    ${fp(stranger)}  ssh-agent  not known to the server\n` +
        `signs:   key ${fp(svc.owner.key)} from file ${file} (marked *, the key that worked last time)\n`,
      stderr: '',
    },
  );
});

test('a server that is down: every key is listed as not checked, then the error (exit 8)', async () => {
  // A port that was just free: nothing listens there (the quick start's second profile).
  const { createServer } = await import('node:net');
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  const url = `http://127.0.0.1:${port}`;
  const file = join(home, '.ssh', 'id_ed25519');
  const result = await exectl(['--url', url, 'auth', 'status'], { home });
  assert.equal(result.code, 8, result.stderr);
  assert.equal(
    result.stdout,
    `url:     ${url}\n` +
      'profile: none\n' +
      'keys, in the order exectl tries them:\n' +
      `  * ${fp(svc.owner.key)}  file ${file}  not checked: the server is unreachable\n` +
      `signs:   key ${fp(svc.owner.key)} from file ${file} (marked *)\n`,
  );
  assert.match(result.stderr, new RegExp(`^exectl: cannot reach ${url}: connection refused — `));
});
