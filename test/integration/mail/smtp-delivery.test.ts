// Mail into machine VMs (SPEC §4b), as root, with Python's smtplib: delivered into the VM's
// ~/Maildir/new/ with `Delivered-To:` first, read back from inside the VM over `ssh`; 1 MB per
// message (552 beyond); receiving off refuses at RCPT (550); more than 1000 waiting files turn
// receiving off; and a Maildir the tenant made a link to a host path writes nothing on the host.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMailHarness, type MailHarness } from './harness.js';

const NOT_HERE = (address: string) =>
  `5.1.1 <${address}>: no mailbox here (share receive-email <vm> on)`;

describe('mail into machine VMs (as root)', () => {
  let mail: MailHarness;

  before(async () => {
    mail = await startMailHarness();
    await mail.ok('new --name inbox');
    await mail.ok('share receive-email inbox on');
  });
  after(() => mail.stop());

  const waiting = async () => Number(await mail.ok('ssh inbox ls -A Maildir/new | wc -l'));

  test('smtplib delivers into ~/Maildir/new/ with Delivered-To first, lines ending in LF', async () => {
    const message = 'From: a@example.com\r\nSubject: hello\r\n\r\nfirst line\r\nsecond line\r\n';
    const answer = await mail.send(['Any.Name@inbox.localhost'], message);
    assert.deepEqual(answer, { code: 250, message: 'sent' });
    const names = (await mail.ok('ssh inbox ls Maildir/new')).trim().split('\n');
    assert.equal(names.length, 1);
    assert.match(names[0]!, /^\d+\.P\d+R[0-9a-f]{16}\.inbox$/);
    assert.equal(
      await mail.ok(`ssh inbox cat Maildir/new/${names[0]}`),
      'Delivered-To: Any.Name@inbox.localhost\n' +
        'From: a@example.com\nSubject: hello\n\nfirst line\nsecond line\n',
    );
    assert.equal(await mail.ok('ssh inbox ls -A Maildir/tmp'), '');
    // Root owns it, and only root reads it.
    assert.equal(await mail.ok(`ssh inbox stat -c %U:%a Maildir/new/${names[0]}`), 'root:600\n');
  });

  test('two messages get two names; two recipients of one VM two copies, each its own line', async () => {
    const before = await waiting();
    const answer = await mail.send(
      ['a@inbox.localhost', 'b@inbox.localhost'],
      'Subject: x\r\n\r\nx\r\n',
    );
    assert.equal(answer.code, 250);
    assert.equal(await waiting(), before + 2);
    const firstLines = await mail.ok(
      'ssh inbox for f in Maildir/new/*; do head -n 1 "$f"; done | sort | uniq -c | sort',
    );
    assert.match(firstLines, /1 Delivered-To: a@inbox\.localhost\n/);
    assert.match(firstLines, /1 Delivered-To: b@inbox\.localhost\n/);
  });

  test('2 MB is refused with 552, and nothing is delivered', async () => {
    const before = await waiting();
    const answer = await mail.send(['big@inbox.localhost'], { size: 2 * 1024 * 1024 });
    assert.equal(answer.code, 552);
    // smtplib declares the size (SIZE=), so MAIL FROM is refused already; a client that does
    // not is refused after DATA (hostile-input.test.ts).
    assert.equal(
      answer.message,
      `Error: message exceeds fixed maximum message size ${1024 * 1024}`,
    );
    assert.equal(await waiting(), before);
  });

  test('an address of no VM, of another domain, or of a VM not receiving is refused at RCPT with 550', async () => {
    await mail.ok('new --name quiet');
    for (const address of ['x@nope.localhost', 'x@quiet.localhost', 'x@inbox.example.com']) {
      assert.deepEqual(await mail.send([address], 'Subject: x\r\n\r\nx\r\n'), {
        code: 550,
        message: NOT_HERE(address),
      });
    }
  });

  test('off refuses from then on and keeps what was delivered; on again takes mail again', async () => {
    const before = await waiting();
    assert.ok(before > 0);
    await mail.ok('share receive-email inbox off');
    assert.deepEqual(await mail.send(['x@inbox.localhost'], 'Subject: x\r\n\r\nx\r\n'), {
      code: 550,
      message: NOT_HERE('x@inbox.localhost'),
    });
    assert.equal(await waiting(), before);
    await mail.ok('share receive-email inbox on');
    assert.equal((await mail.send(['x@inbox.localhost'], 'Subject: x\r\n\r\nx\r\n')).code, 250);
  });

  test('a Maildir the tenant made a link to a host folder fills the VM’s own folder, never the host’s', async () => {
    const hostFolder = await mkdtemp(join(tmpdir(), 'exectl-mail-target-'));
    try {
      await mail.ok(
        `ssh inbox mkdir -p ${hostFolder} && mv Maildir Maildir.kept && ln -s ${hostFolder} Maildir`,
      );
      assert.equal((await mail.send(['x@inbox.localhost'], 'Subject: x\r\n\r\nx\r\n')).code, 250);
      assert.deepEqual(await readdir(hostFolder), []);
      assert.equal(await mail.ok(`ssh inbox ls ${hostFolder}/new | wc -l`), '1\n');
      await mail.ok('ssh inbox rm Maildir && mv Maildir.kept Maildir');
    } finally {
      await rm(hostFolder, { recursive: true, force: true });
    }
  });

  test('more than 1000 files waiting in new/ turns receiving off; clearing and on takes mail again', async () => {
    await mail.ok('ssh inbox for i in $(seq 1 1000); do : > Maildir/new/filler.$i; done');
    assert.equal((await mail.send(['x@inbox.localhost'], 'Subject: x\r\n\r\nx\r\n')).code, 250);
    assert.deepEqual(JSON.parse(await mail.ok('share receive-email inbox')), {
      vm_name: 'inbox',
      receive_email: false,
    });
    assert.equal((await mail.send(['x@inbox.localhost'], 'Subject: x\r\n\r\nx\r\n')).code, 550);
    await mail.ok('ssh inbox rm Maildir/new/filler.*');
    await mail.ok('share receive-email inbox on');
    assert.equal((await mail.send(['x@inbox.localhost'], 'Subject: x\r\n\r\nx\r\n')).code, 250);
  });
});
