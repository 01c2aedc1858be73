// Hostile SMTP clients (SPEC §4b, §7 "hostile input never takes the server down"): a flood of
// connections and commands, a 10 MB DATA that never declared its size, and a bare-LF message.
// After each the server answers another client's /exec at once, and another address still
// gets its mail delivered.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startMailHarness, type MailHarness } from './harness.js';

/** What an SMTP server said to `script` (written at once once greeted), until it hung up or `QUIT` answered. */
function converse(
  port: number,
  script: (string | Buffer)[],
  localAddress = '127.0.0.1',
): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    let said = '';
    const done = () => resolve(said);
    let greeted = false;
    socket.on('data', (chunk: Buffer) => {
      said += chunk.toString('latin1');
      // The whole script at once, but after the greeting: a client that talks first is refused.
      if (!greeted && /^220 /m.test(said)) {
        greeted = true;
        for (const part of script) socket.write(part);
      }
      if (/^221 /m.test(said)) socket.end();
    });
    socket.on('error', done);
    socket.on('close', done);
    socket.setTimeout(90_000, () => socket.destroy());
  });
}

const envelope = (to: string) => [
  'EHLO client.example\r\n',
  'MAIL FROM:<sender@example.com>\r\n',
  `RCPT TO:<${to}>\r\n`,
  'DATA\r\n',
];

describe('hostile SMTP clients leave the server answering others (as root)', () => {
  let mail: MailHarness;

  before(async () => {
    mail = await startMailHarness();
    await mail.ok('new --name inbox');
    await mail.ok('share receive-email inbox on');
  });
  after(() => mail.stop());

  /** Another client's /exec whoami answers within a few seconds, and 127.0.0.2 gets mail in. */
  const othersAreServed = async () => {
    const started = performance.now();
    const answer = await mail.exec('whoami');
    assert.equal(answer.status, 200);
    assert.ok(performance.now() - started < 5_000, 'whoami answered within 5 s');
    const said = await converse(
      mail.smtpPort,
      [...envelope('other@inbox.localhost'), 'Subject: ok\r\n\r\nok\r\n.\r\n', 'QUIT\r\n'],
      '127.0.0.2',
    );
    assert.match(said, /^250 delivered\r$/m);
  };

  test('a 10 MB DATA that declared no size is read through, refused with 552, and costs nothing kept', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 'y');
    const said = await converse(mail.smtpPort, [
      ...envelope('big@inbox.localhost'),
      'Subject: big\r\n\r\n',
      ...Array<Buffer>(10).fill(chunk),
      '\r\n.\r\n',
      'QUIT\r\n',
    ]);
    assert.match(said, /^552 5\.3\.4 message over 1048576 bytes: not delivered\r$/m);
    assert.equal(await mail.ok('ssh inbox ls -A Maildir/new 2>/dev/null | wc -l'), '0\n');
    await othersAreServed();
  });

  test('a flood of connections and commands: each address gets its share, the server goes on', async () => {
    const flood = Array.from({ length: 100 }, () =>
      converse(mail.smtpPort, [
        'EHLO flood.example\r\n',
        ...Array<string>(2000).fill('NOOP\r\n'),
        'QUIT\r\n',
      ]),
    );
    const answers = await Promise.all(flood);
    // Past the share of one address, a connection is told so and closed.
    assert.ok(
      answers.some((said) => said.includes('421 4.7.0 too many connections from your address')),
    );
    await othersAreServed();
  });

  test('a bare-LF message is taken or refused, never the server’s end', async () => {
    const said = await converse(mail.smtpPort, [
      'EHLO lf.example\n',
      'MAIL FROM:<sender@example.com>\n',
      'RCPT TO:<lf@inbox.localhost>\n',
      'DATA\n',
      'Subject: lf\n\nline one\nline two\n.\n',
      'QUIT\n',
    ]);
    assert.match(said, /^220 /);
    await othersAreServed();
  });
});
