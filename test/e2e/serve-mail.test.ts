// `exectl serve mail` (SPEC §4b): the outbox of the mail VMs sent their owners, offline on a
// data folder and beside a running server through its admin socket. The built CLI against a
// real `exectl serve`; the messages are put in the store as the email gateway puts them
// (test/integration/mail/email-gateway.test.ts proves a VM's request lands there).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openStore } from '../../src/service/store/index.js';
import { generateKey, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt, exectl } from './harness.js';
import { TEST_FLAGS, startServe, stopAll } from './serve-server.js';

let dir: TempDir;
let ada: GeneratedKey;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-mail');
  ada = await generateKey(dir.path, 'ed25519', { name: 'ada', comment: 'ada@laptop' });
});
after(async () => {
  await stopAll();
  await dir.remove();
});

const mail = (data: string, args: string[] = []) =>
  exectl(['serve', 'mail', ...args, '--data', data], { home: dir.path });

/** Keeps a message from `vm` to ada in the outbox of the store in `data`, as the gateway does. */
function keep(data: string, vm: string, subject: string): void {
  const store = openStore(join(data, 'exectl.db'));
  try {
    const account = store.findAccountByEmail('ada@example.com')!;
    store.addOutboxMessage({
      accountId: account.id,
      vmName: vm,
      to: 'ada@example.com',
      subject,
      body: 'It passed.',
    });
  } finally {
    store.close();
  }
}

test('serve mail shows the outbox beside a running server, then offline', async () => {
  const data = dir.join('data');
  const server = await startServe(
    ['--data', data, ...TEST_FLAGS, '--owner', 'ada@example.com', '--authorized-key', ada.pubPath],
    { home: dir.path },
  );
  assert.deepEqual(await mail(data), { code: 0, stdout: 'no mail\n', stderr: '' });
  keep(data, 'web', 'Build complete');
  const live = await mail(data, ['--json']);
  assert.equal(live.code, 0, live.stderr);
  const { messages } = JSON.parse(live.stdout) as { messages: Record<string, string>[] };
  assert.equal(messages.length, 1);
  const sentAt = messages[0]!.sent_at!;
  assert.match(sentAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.deepEqual(messages, [
    {
      to: 'ada@example.com',
      from_vm: 'web',
      subject: 'Build complete',
      body: 'It passed.',
      sent_at: sentAt,
    },
  ]);
  await server.stop();
  const offline = await mail(data);
  assert.deepEqual(offline, {
    code: 0,
    stdout: `Date: ${sentAt}\nFrom: vm web\nTo: ada@example.com\nSubject: Build complete\n\nIt passed.\n`,
    stderr: '',
  });
});
