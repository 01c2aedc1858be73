// Authentication by registered public key only, and a host key that survives restarts; driven
// with the real OpenSSH client, ssh-keyscan and ssh-keygen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { stat, writeFile } from 'node:fs/promises';
import ssh2, { type KeyboardInteractiveAuthMethod, type PasswordAuthMethod } from 'ssh2';
import { buildRegistry } from '../../../src/service/commands/index.js';
import { run, type KeyKind } from '../../helpers/keys.js';
import { startSshHarness, type SshHarness } from './harness.js';

let h: SshHarness;
before(async () => {
  h = await startSshHarness({ registry: buildRegistry() });
});
after(() => h?.close());

const KINDS: KeyKind[] = ['ed25519', 'ecdsa-256', 'ecdsa-384', 'ecdsa-521', 'rsa-2048'];

for (const kind of KINDS) {
  test(`auth: a registered ${kind} key signs in as its account`, async () => {
    const key = await h.newKey(`key-${kind}`, { kind, register: true });
    const r = await h.ssh('whoami --json', { key });
    assert.equal(r.code, 0, r.stderr);
    const answer = JSON.parse(r.stdout);
    assert.equal(answer.email, 'owner@example.com');
    const current = answer.ssh_keys.filter((k: { current: boolean }) => k.current);
    assert.deepEqual(
      current.map((k: { name: string }) => k.name),
      [`key-${kind}`],
    );
  });
}

test('auth: an RSA key signing with SHA-1 (ssh-rsa) is refused; rsa-sha2-256 is accepted', async () => {
  const key = await h.newKey('rsa-sha1', { kind: 'rsa-2048', register: true });
  const sha1 = await h.ssh('whoami --json', {
    key,
    extra: ['-o', 'PubkeyAcceptedAlgorithms=ssh-rsa', '-l', 'tester'],
  });
  assert.equal(sha1.stderr, 'tester@127.0.0.1: Permission denied (publickey).\r\n');
  assert.equal(sha1.code, 255);
  const sha256 = await h.ssh('whoami --json', {
    key,
    extra: ['-o', 'PubkeyAcceptedAlgorithms=rsa-sha2-256'],
  });
  assert.equal(sha256.code, 0, sha256.stderr);
});

test('auth: the SSH user name does not matter, the key decides', async () => {
  const r = await h.ssh('whoami --json', { extra: ['-l', 'somebody-else'] });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).email, 'owner@example.com');
});

test('auth: an unregistered key is refused at authentication, and logged once as 401', async () => {
  const stranger = await h.newKey('stranger');
  const fingerprint = (await run('ssh-keygen', ['-lf', stranger.pubPath])).stdout.split(' ')[1];
  const before = h.logs.length;
  const r = await h.ssh('whoami --json', { key: stranger, extra: ['-l', 'tester'] });
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, 'tester@127.0.0.1: Permission denied (publickey).\r\n');
  assert.equal(r.code, 255);
  await waitFor(() => h.logs.length > before);
  const lines = h.logs.slice(before);
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0]!, new RegExp(` via=ssh key=${escape(fingerprint!)} cmd="-" status=401 `));
});

test('auth: a key removed from its account is refused from then on', async () => {
  const key = await h.newKey('soon-gone', { register: true });
  assert.equal((await h.ssh('whoami --json', { key })).code, 0);
  h.store.removeKey(
    h.store.listKeys(h.owner.account.id).find((k) => k.name === 'soon-gone')!.fingerprint,
  );
  const r = await h.ssh('whoami --json', { key });
  assert.equal(r.code, 255);
  assert.match(r.stderr, /Permission denied \(publickey\)/);
});

test('auth: the server offers publickey only — a client wanting passwords has nothing to try', async () => {
  const r = await h.ssh('whoami', {
    extra: ['-v', '-o', 'PreferredAuthentications=password,keyboard-interactive'],
  });
  assert.equal(r.code, 255);
  const offered = [...r.stderr.matchAll(/Authentications that can continue: (.*)/g)].map(
    (m) => m[1],
  );
  assert.deepEqual(offered, ['publickey']);
  assert.match(r.stderr, /Permission denied \(publickey\)/);
});

test('auth: password and keyboard-interactive attempts are refused even when sent', async () => {
  const sent: string[] = [];
  const methods: [PasswordAuthMethod, KeyboardInteractiveAuthMethod] = [
    { type: 'password', username: 'owner', password: 'anything' },
    {
      type: 'keyboard-interactive',
      username: 'owner',
      prompt: (_name, _instructions, _lang, _prompts, finish) => finish(['anything']),
    },
  ];
  const outcome = await new Promise<string>((resolve) => {
    const client = new ssh2.Client();
    client.on('ready', () => {
      client.end();
      resolve('authenticated');
    });
    client.on('error', (err) => resolve(err.message));
    client.connect({
      host: '127.0.0.1',
      port: h.frontEnd.address.port,
      username: 'owner',
      authHandler: methods,
      debug: (line) => {
        const request = /Sending USERAUTH_REQUEST \((.+)\)/.exec(line);
        if (request) sent.push(request[1]!);
      },
    });
  });
  assert.deepEqual(sent, ['password', 'keyboard-interactive']);
  assert.equal(outcome, 'All configured authentication methods failed');
});

test('auth: the host key is kept in the data folder (mode 0600) and served after a restart', async () => {
  const mode = (await stat(h.hostKeyPath)).mode & 0o777;
  assert.equal(mode, 0o600);
  const before = await scanHostKey();
  const listed = await fingerprintOf(before);
  assert.equal(listed, h.frontEnd.hostKeyFingerprint);

  await h.restart();
  assert.equal(await scanHostKey(), before);
  assert.equal(h.frontEnd.hostKeyFingerprint, listed);

  // A client that pinned the key before the restart connects without a warning.
  const pinned = h.dir.join('pinned_known_hosts');
  await writeFile(pinned, before + '\n');
  const r = await h.ssh('whoami --json', {
    extra: ['-o', 'StrictHostKeyChecking=yes', '-o', `UserKnownHostsFile=${pinned}`],
  });
  assert.equal(r.code, 0, r.stderr);
});

/** The served host key as one known_hosts line, from real ssh-keyscan. */
async function scanHostKey(): Promise<string> {
  const port = String(h.frontEnd.address.port);
  const r = await run('ssh-keyscan', ['-p', port, '-t', 'ed25519', '127.0.0.1']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n').filter((l) => l.startsWith('['));
  assert.equal(lines.length, 1, r.stdout);
  return lines[0]!;
}

async function fingerprintOf(knownHostsLine: string): Promise<string> {
  const file = h.dir.join('scanned_key');
  await writeFile(file, knownHostsLine + '\n');
  const r = await run('ssh-keygen', ['-lf', file]);
  return r.stdout.split(' ')[1]!;
}

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i += 1) await new Promise((r) => setTimeout(r, 10));
  assert.ok(condition(), 'condition never became true');
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
