// chooseSigner's SPEC §1.4 order, with a real ssh-agent and key files in a fake home dir.
import assert from 'node:assert/strict';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parsePublicKey } from '../../../src/token/keys.js';
import { chooseSigner, keyCandidates } from '../../../src/token/signer.js';
import { generateKey, startAgent, type GeneratedKey, type TestAgent } from '../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';

function passphrase(value: string | undefined) {
  const source = async () => {
    source.calls++;
    return value;
  };
  source.calls = 0;
  return source;
}

const fingerprint = (key: GeneratedKey): string => parsePublicKey(key.publicKeyLine).fingerprint;

describe('chooseSigner', () => {
  let dir: TempDir;
  let agent: TestAgent;
  let emptyAgent: TestAgent;
  let home: string;
  let first: GeneratedKey;
  let second: GeneratedKey;
  let notInAgent: GeneratedKey;
  const homeKeys: Record<string, GeneratedKey> = {};

  before(async () => {
    dir = await createTempDir('signer');
    await mkdir(dir.join('empty-agent'));
    agent = await startAgent(dir.path);
    emptyAgent = await startAgent(dir.join('empty-agent'));
    first = await generateKey(dir.path, 'ed25519', { name: 'first' });
    second = await generateKey(dir.path, 'ecdsa-256', { name: 'second', passphrase: 'pw' });
    notInAgent = await generateKey(dir.path, 'ed25519', { name: 'outside' });
    await agent.add(first);
    await agent.add(second);
    home = dir.join('home');
    await mkdir(dir.join('home', '.ssh'), { recursive: true });
    homeKeys.id_ecdsa = await generateKey(dir.join('home', '.ssh'), 'ecdsa-384', {
      name: 'id_ecdsa',
    });
    homeKeys.id_rsa = await generateKey(dir.join('home', '.ssh'), 'rsa-2048', { name: 'id_rsa' });
  });
  after(async () => {
    await agent.stop();
    await emptyAgent.stop();
    await dir.remove();
  });

  test('--key whose .pub the agent holds: the agent signs, no passphrase asked', async () => {
    const ask = passphrase('pw');
    const signer = await chooseSigner({
      keyPath: second.path,
      agentSocket: agent.socketPath,
      homeDir: home,
      passphrase: ask,
    });
    assert.equal(signer.source, 'ssh-agent');
    assert.equal(signer.publicKey.fingerprint, fingerprint(second));
    assert.equal(ask.calls, 0);
  });

  test('--key the agent does not hold: the file', async () => {
    const signer = await chooseSigner({
      keyPath: notInAgent.path,
      agentSocket: agent.socketPath,
      homeDir: home,
      passphrase: passphrase(undefined),
    });
    assert.equal(signer.source, notInAgent.path);
    assert.equal(signer.publicKey.fingerprint, fingerprint(notInAgent));
  });

  test('--key without a .pub beside it: the file, even when the agent holds that key', async () => {
    const copy = dir.join('second-copy');
    await copyFile(second.path, copy);
    const ask = passphrase('pw');
    const signer = await chooseSigner({
      keyPath: copy,
      agentSocket: agent.socketPath,
      homeDir: home,
      passphrase: ask,
    });
    assert.equal(signer.source, copy);
    assert.equal(signer.publicKey.fingerprint, fingerprint(second));
    assert.equal(ask.calls, 1);
  });

  test('--key that does not exist and no agent: key_error', async () => {
    const path = dir.join('missing');
    await assert.rejects(
      chooseSigner({ keyPath: path, homeDir: home, passphrase: passphrase(undefined) }),
      {
        code: 'key_error',
        message: `cannot read key file ${path} (ENOENT)`,
      },
    );
  });

  test('no --key: the first agent key, before any file', async () => {
    const signer = await chooseSigner({
      agentSocket: agent.socketPath,
      homeDir: home,
      passphrase: passphrase(undefined),
    });
    assert.equal(signer.source, 'ssh-agent');
    assert.equal(signer.publicKey.fingerprint, fingerprint(first));
  });

  test('no --key and no agent, an agent with no keys, or a stale socket: ~/.ssh in order', async () => {
    const sources = [undefined, emptyAgent.socketPath, dir.join('stale.sock')];
    for (const agentSocket of sources) {
      const signer = await chooseSigner({
        agentSocket,
        homeDir: home,
        passphrase: passphrase(undefined),
      });
      assert.equal(signer.source, dir.join('home', '.ssh', 'id_ecdsa'), String(agentSocket));
      assert.equal(signer.publicKey.fingerprint, fingerprint(homeKeys.id_ecdsa!));
    }
    const ed = await generateKey(dir.join('home', '.ssh'), 'ed25519', { name: 'id_ed25519' });
    const signer = await chooseSigner({ homeDir: home, passphrase: passphrase(undefined) });
    assert.equal(signer.source, ed.path);
  });

  test('id_rsa is used when it is the only default file', async () => {
    const only = dir.join('rsa-home');
    await mkdir(dir.join('rsa-home', '.ssh'), { recursive: true });
    const rsa = await generateKey(dir.join('rsa-home', '.ssh'), 'rsa-2048', { name: 'id_rsa' });
    const signer = await chooseSigner({ homeDir: only, passphrase: passphrase(undefined) });
    assert.equal(signer.source, rsa.path);
  });

  test('no key anywhere: key_error with a hint', async () => {
    await assert.rejects(
      chooseSigner({
        agentSocket: emptyAgent.socketPath,
        homeDir: dir.join('nobody'),
        passphrase: passphrase(undefined),
      }),
      {
        name: 'ExectlError',
        code: 'key_error',
        message: 'no SSH key found',
        hint: 'create one with `ssh-keygen -t ed25519`, or pass --key PATH',
      },
    );
  });
  test('keyCandidates: every agent key in order, then the ~/.ssh files that exist, none loaded', async () => {
    const fresh = dir.join('candidates-home');
    await mkdir(join(fresh, '.ssh'), { recursive: true });
    const ed = await generateKey(join(fresh, '.ssh'), 'ed25519', { name: 'id_ed25519' });
    const rsa = await generateKey(join(fresh, '.ssh'), 'rsa-2048', { name: 'id_rsa' });
    const candidates = await keyCandidates({ agentSocket: agent.socketPath, homeDir: fresh });
    assert.deepEqual(
      candidates.map((c) => [c.source, c.fingerprint]),
      [
        ['ssh-agent', fingerprint(first)],
        ['ssh-agent', fingerprint(second)],
        [{ path: ed.path }, fingerprint(ed)],
        [{ path: rsa.path }, fingerprint(rsa)],
      ],
    );
    // A file is loaded only when asked: the fingerprint above came from its .pub.
    const ask = passphrase(undefined);
    const signer = await candidates[3]!.signer(ask);
    assert.deepEqual(
      [signer.source, signer.publicKey.fingerprint, ask.calls],
      [rsa.path, fingerprint(rsa), 0],
    );
  });

  test('keyCandidates with a key path: the agent copy (by its .pub), then the file', async () => {
    const candidates = await keyCandidates({
      keyPath: second.path,
      agentSocket: agent.socketPath,
      homeDir: home,
    });
    assert.deepEqual(
      candidates.map((c) => [c.source, c.fingerprint]),
      [
        ['ssh-agent', fingerprint(second)],
        [{ path: second.path }, fingerprint(second)],
      ],
    );
  });
});
