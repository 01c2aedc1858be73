// `exectl run browser` (SPEC §11) with the built CLI against a real service: the link it prints
// signs in once, as the caller, allowed every command; it is opened with $BROWSER, or only
// printed with --no-open or where no browser can be opened.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { homeWithOwnerKey, startTestService, type TestService } from '../helpers/service.js';
import { assertBuilt, exectl } from './harness.js';

let svc: TestService;
let home: string;

before(async () => {
  assertBuilt();
  svc = await startTestService();
  home = await homeWithOwnerKey(svc);
});
after(() => svc.stop());

const LINK = /^\{"magic_link":"(http:\/\/127\.0\.0\.1:\d+\/_\/signin\/[A-Za-z0-9_-]{43})"\}\n$/;

async function sessionOf(link: string): Promise<string> {
  const first = await fetch(link, { redirect: 'manual' });
  assert.equal(first.status, 303);
  return (first.headers.get('set-cookie') ?? '').split(';')[0]!;
}

test('--no-open prints the link only; its session may run every command', async () => {
  const result = await exectl(['--url', svc.url, 'run', 'browser', '--no-open'], {
    home,
    env: { BROWSER: '/bin/false' },
  });
  assert.deepEqual([result.code, result.stderr], [0, '']);
  const link = LINK.exec(result.stdout)?.[1];
  assert.ok(link !== undefined, result.stdout);
  const cookie = await sessionOf(link);
  for (const line of ['ls', 'ssh-key list', 'team members', 'integrations list', 'new --help']) {
    const answer = await fetch(`${svc.url}/_/api/exec`, {
      method: 'POST',
      headers: { Cookie: cookie, Origin: svc.url },
      body: line,
    });
    assert.equal(answer.status, 200, `${line}: ${await answer.text()}`);
  }
});

test('without --no-open the link goes to $BROWSER', async () => {
  const opened = `${home}/opened.txt`;
  const browser = `${home}/fake-browser`;
  await writeFile(browser, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o755 });
  const result = await exectl(['--url', svc.url, 'run', 'browser'], {
    home,
    env: { BROWSER: browser },
  });
  assert.deepEqual([result.code, result.stderr], [0, '']);
  const link = LINK.exec(result.stdout)?.[1];
  // The browser starts detached: wait (bounded) until it has written the whole link.
  const written = () => (existsSync(opened) ? readFileSync(opened, 'utf8') : '');
  for (let i = 0; i < 400 && written() !== link; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(written(), link);
});

test('where no browser can be opened, it says so and the link is printed', async () => {
  const result = await exectl(['--url', svc.url, 'run', 'browser'], { home });
  assert.equal(result.code, 0);
  assert.match(result.stdout, LINK);
  assert.equal(
    result.stderr,
    'exectl: no browser to open here: open the link above (once, within 15 minutes)\n',
  );
});
