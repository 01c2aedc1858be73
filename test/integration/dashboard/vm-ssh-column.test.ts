// The VM list's SSH column is a line to paste (SPEC §6a: with the listener not on port 22,
// clients add `-p ssh_port`). A real Chromium.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../../helpers/service.js';
import { launchBrowser } from './browser.js';
import { askForLink, raw } from './sign-in.js';

const WAIT = { timeout: 60_000 };

let svc: TestService;
let browser: Browser;

before(async () => {
  svc = await startTestService({ sshListen: { host: '127.0.0.1', port: 0 } });
  const token = await svc.token('{"cmds":["new"]}');
  const made = await raw(
    svc,
    'POST',
    '/exec',
    { Authorization: `Bearer ${token}` },
    'new --name web',
  );
  assert.equal(made.status, 200, made.body);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await svc?.stop();
});

test('the SSH column carries -p with the SSH port when it is not 22', async () => {
  const page = await browser.newPage();
  page.setDefaultTimeout(WAIT.timeout);
  await page.goto(await askForLink(svc));
  const port = svc.service.endpoints.ssh!.port;
  await page
    .getByRole('cell', { name: `ssh -p ${port} vm+web@localhost`, exact: true })
    .waitFor(WAIT);
});
