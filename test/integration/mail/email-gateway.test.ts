// The email gateway inside machine VMs (SPEC §4b), as root: `POST
// http://169.254.169.254/gateway/email/send` is answered by the server itself and lands in the
// outbox; a `to` that is not the owner, a missing field or another path is refused; the VM's
// bucket runs out; and every other link-local address is refused from inside the VM.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { quoteForShell } from '../../../src/shell-words.js';
import { startMailHarness, type MailHarness } from './harness.js';

const SEND = 'http://169.254.169.254/gateway/email/send';

describe('the email gateway at 169.254.169.254 (as root)', () => {
  let mail: MailHarness;

  before(async () => {
    mail = await startMailHarness({ smtpListen: null });
    await mail.ok('new --name mailer');
  });
  after(() => mail.stop());

  /** What the gateway answered the VM `vm` for `curl <args>` (its status, then its body). */
  const inside = (vm: string, command: string) => mail.ok(`ssh ${vm} ${quoteForShell(command)}`);
  const send = (vm: string, body: unknown) =>
    inside(
      vm,
      `curl -s -m 20 -w ' %{http_code}' -X POST ${SEND} -H 'Content-Type: application/json' -d ${quoteForShell(JSON.stringify(body))}`,
    );

  test('a message to the owner answers {"success":true} and lands in the outbox', async () => {
    const body = { to: 'Owner@Example.com', subject: 'Build complete', body: 'It passed.\n' };
    assert.equal(await send('mailer', body), '{"success":true}\n 200');
    const kept = mail.svc.service.store.listOutbox();
    assert.deepEqual(
      kept.map(({ vmName, to, subject, body }) => ({ vmName, to, subject, body })),
      [{ vmName: 'mailer', ...body }],
    );
  });

  test('a "to" that is not the owner, a missing field, a field too many: refused with one error', async () => {
    const cases: [body: unknown, answer: string][] = [
      [
        { to: 'someone@else.example', subject: 's', body: 'b' },
        `{"error":"\\"to\\" must be the address of the VM's owner (see the reflection /email)"} 422`,
      ],
      [
        { to: 'owner@example.com', body: 'b' },
        '{"error":"\\"subject\\" is required: send {\\"to\\",\\"subject\\",\\"body\\"}, all strings"} 400',
      ],
      [
        { to: 'owner@example.com', subject: 's', body: 'b', cc: 'x@y' },
        '{"error":"unknown field \\"cc\\": send {\\"to\\",\\"subject\\",\\"body\\"}, all strings"} 400',
      ],
    ];
    for (const [body, answer] of cases) {
      assert.equal(await send('mailer', body), answer.replace(/ (\d+)$/, '\n $1'));
    }
    assert.equal(mail.svc.service.store.listOutbox().length, 1);
  });

  test('169.254.169.254 answers nothing else: another path is 404, another port refused', async () => {
    assert.equal(
      await inside('mailer', `curl -s -m 20 -w ' %{http_code}' http://169.254.169.254/`),
      '{"error":"not found: the gateway answers POST /gateway/email/send"}\n 404',
    );
    assert.equal(
      await inside('mailer', 'curl -s -m 20 http://169.254.169.254:8080/; echo " $?"'),
      ' 7\n',
    );
  });

  test('every other link-local address is refused from inside the VM, at once', async () => {
    for (const address of ['169.254.1.1', '169.254.169.253']) {
      const started = performance.now();
      assert.equal(await inside('mailer', `curl -s -m 20 http://${address}/; echo "$?"`), '7\n');
      assert.ok(performance.now() - started < 15_000, `${address} refused, not timed out`);
    }
  });

  test('the VM’s bucket: past 10 messages at once, 429', async () => {
    await mail.ok('new --name chatty');
    const body = { to: 'owner@example.com', subject: 'again', body: '.' };
    for (let i = 0; i < 10; i++) assert.equal(await send('chatty', body), '{"success":true}\n 200');
    assert.equal(await send('chatty', body), '{"error":"rate limit exceeded"}\n 429');
  });
});
