// Signing through a real ssh-agent started by this file, speaking the protocol ourselves.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { listAgentSigners } from '../../../src/token/agent.js';
import { splitSvc0 } from '../../../src/token/format.js';
import { parsePublicKey } from '../../../src/token/keys.js';
import { mintSvc0 } from '../../../src/token/mint.js';
import { armorSshSig, parseSshSig } from '../../../src/token/sshsig.js';
import { verifySvc0 } from '../../../src/token/verify.js';
import {
  generateKey,
  run,
  sshKeygenVerify,
  startAgent,
  type GeneratedKey,
  type TestAgent,
} from '../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';

const NS = 'v0@localhost';

describe('listAgentSigners with a real ssh-agent', () => {
  let dir: TempDir;
  let agent: TestAgent;
  const keys: GeneratedKey[] = [];

  before(async () => {
    dir = await createTempDir('agent');
    agent = await startAgent(dir.path);
    keys.push(await generateKey(dir.path, 'ed25519'));
    keys.push(await generateKey(dir.path, 'ecdsa-256'));
    keys.push(await generateKey(dir.path, 'rsa-2048'));
    keys.push(await generateKey(dir.path, 'ecdsa-521', { passphrase: 'agent holds it decrypted' }));
    keys.push(
      await generateKey(dir.path, 'ed25519', {
        name: 'gcm',
        passphrase: 'pw',
        cipher: 'aes256-gcm@openssh.com',
      }),
    );
    for (const key of keys.slice(0, 3)) await agent.add(key);
    // An RSA key below 2048 bits sits between the others: it must be skipped, not fatal.
    await run('ssh-keygen', ['-q', '-t', 'rsa', '-b', '1024', '-N', '', '-f', dir.join('small')]);
    const env = { SSH_AUTH_SOCK: agent.socketPath };
    assert.equal((await run('ssh-add', ['-q', dir.join('small')], { env })).code, 0);
    for (const key of keys.slice(3)) await agent.add(key);
  });
  after(async () => {
    await agent.stop();
    await dir.remove();
  });

  test('lists the supported keys in agent order, with comments, as ssh-agent signers', async () => {
    const signers = await listAgentSigners(agent.socketPath);
    assert.deepEqual(
      signers.map((s) => [s.publicKey.fingerprint, s.publicKey.comment, s.source]),
      keys.map((k) => {
        const key = parsePublicKey(k.publicKeyLine);
        return [key.fingerprint, key.comment, 'ssh-agent'];
      }),
    );
  });

  for (const [index, label] of [
    [0, 'ed25519'],
    [1, 'ECDSA P-256'],
    [2, 'RSA'],
    [3, 'passphrase-protected ECDSA P-521'],
    [4, 'aes256-gcm encrypted ed25519 (unreadable as a file)'],
  ] as const) {
    test(`${label}: a token signed through the agent passes verifySvc0 and ssh-keygen`, async () => {
      const key = keys[index] as GeneratedKey;
      const publicKey = parsePublicKey(key.publicKeyLine);
      const signers = await listAgentSigners(agent.socketPath);
      const signer = signers.find((s) => s.publicKey.fingerprint === publicKey.fingerprint);
      assert.ok(signer);
      const token = await mintSvc0('{"cmds":["ls"]}', signer, NS);
      const findKey = (fp: string) => (fp === publicKey.fingerprint ? publicKey : undefined);
      assert.equal(
        verifySvc0(token, { namespace: NS, nowSeconds: 1_800_000_000, findKey }).fingerprint,
        publicKey.fingerprint,
      );
      const { payload, sigblob } = splitSvc0(token);
      const expectedAlgorithm = key.kind === 'rsa-2048' ? 'rsa-sha2-512' : publicKey.type;
      assert.equal(parseSshSig(sigblob).signatureAlgorithm, expectedAlgorithm);
      const checked = await sshKeygenVerify({
        dir: dir.path,
        publicKeyLine: key.publicKeyLine,
        armoredSignature: armorSshSig(sigblob),
        message: payload,
        namespace: NS,
      });
      assert.equal(checked.ok, true, checked.stderr);
    });
  }

  test('a key removed from the agent after listing: the agent refuses, a key_error', async () => {
    const extra = await generateKey(dir.path, 'ed25519', { name: 'removed' });
    await agent.add(extra);
    const signers = await listAgentSigners(agent.socketPath);
    const wanted = parsePublicKey(extra.publicKeyLine).fingerprint;
    const signer = signers.find((s) => s.publicKey.fingerprint === wanted);
    assert.ok(signer);
    const removed = await run('ssh-add', ['-d', extra.pubPath], {
      env: { SSH_AUTH_SOCK: agent.socketPath },
    });
    assert.equal(removed.code, 0, removed.stderr);
    await assert.rejects(signer.sign(Buffer.from('data')), {
      code: 'key_error',
      message: `ssh-agent at ${agent.socketPath} refused to sign`,
    });
  });
});

describe('listAgentSigners failures', () => {
  let dir: TempDir;
  const servers: Server[] = [];
  before(async () => {
    dir = await createTempDir('agentfail');
  });
  after(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    await dir.remove();
  });

  /** A unix-socket server that answers each connection with `reply` (or just hangs up). */
  async function fakeAgent(name: string, reply: Buffer | undefined): Promise<string> {
    const path = dir.join(name);
    const server = createServer((socket) => {
      socket.once('data', () => (reply === undefined ? socket.destroy() : socket.end(reply)));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(path, resolve));
    return path;
  }

  test('no agent at the path', async () => {
    const path = dir.join('nothing.sock');
    await assert.rejects(listAgentSigners(path), {
      code: 'key_error',
      message: `cannot reach ssh-agent at ${path}`,
      hint: 'check that ssh-agent runs and SSH_AUTH_SOCK points to it, or pass --key PATH',
    });
  });

  const replies: [string, Buffer | undefined, string][] = [
    ['hangs up without answering', undefined, 'closed the connection'],
    [
      'answers with a truncated identity list',
      Buffer.from('0000000a0c0000000100000020', 'hex'),
      'closed the connection',
    ],
    [
      'answers with a bad identity list',
      Buffer.from('000000050c00000001', 'hex'),
      'sent a malformed reply',
    ],
    ['answers SSH_AGENT_FAILURE', Buffer.from('0000000105', 'hex'), 'sent a malformed reply'],
    ['announces an oversized message', Buffer.from('7fffffff0c', 'hex'), 'sent an oversized reply'],
  ];
  for (const [index, [name, reply, what]] of replies.entries()) {
    test(`an agent that ${name}: ${what}`, async () => {
      const path = await fakeAgent(`fake-${index}.sock`, reply);
      await assert.rejects(listAgentSigners(path), {
        code: 'key_error',
        message: `ssh-agent at ${path} ${what}`,
      });
    });
  }
});
