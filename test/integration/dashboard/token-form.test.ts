// The token form of a session whose token ends in two hours (SPEC §11): "Expires in" offers
// only what the session can grant, its default makes a token that works, and a mistake is
// told in the page's words, not the CLI's flags. A real Chromium.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestService, type TestService } from '../../helpers/service.js';
import { keepScreenshot, launchBrowser } from './browser.js';
import { EVERY_CMD, raw } from './sign-in.js';

const WAIT = { timeout: 60_000 };

let svc: TestService;
let browser: Browser;
let page: Page;

before(async () => {
  svc = await startTestService();
  const exp = Math.floor(Date.now() / 1000) + 2 * 3600;
  const token = await svc.token(JSON.stringify({ exp, cmds: EVERY_CMD }));
  const answer = await raw(svc, 'POST', '/exec', { Authorization: `Bearer ${token}` }, 'browser');
  assert.equal(answer.status, 200, answer.body);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(WAIT.timeout);
  await page.goto((JSON.parse(answer.body) as { magic_link: string }).magic_link);
  await page.getByText('Signed in as owner@example.com').waitFor(WAIT);
  await page.getByRole('button', { name: 'Tokens', exact: true }).click();
});
after(async () => {
  await browser?.close();
  await svc?.stop();
});

test('"Expires in" offers only expiries before the session token ends; the default works', async () => {
  const select = page.getByRole('combobox', { name: 'Expires in' });
  await select
    .locator('option')
    .nth(1)
    .waitFor({ state: 'attached', ...WAIT });
  const options = await select.locator('option').allTextContents();
  assert.equal(options.length, 2, options.join(', '));
  assert.equal(options[0], '1h');
  assert.match(options[1]!, /^until this session ends \(1h 5\dm\)$/);
  assert.equal(
    await select.inputValue(),
    (await select.locator('option').nth(1).getAttribute('value'))!,
  );
  await page.getByRole('button', { name: 'Make token' }).click();
  const curl = page.getByRole('textbox', { name: 'curl line' });
  await curl.waitFor(WAIT);
  const token = /Bearer (svc1\.[A-Z2-7]{26})'/.exec(await curl.inputValue())?.[1];
  assert.ok(token !== undefined);
  const who = await raw(svc, 'POST', '/exec', { Authorization: `Bearer ${token}` }, 'whoami');
  assert.equal(who.status, 200, who.body);
  await keepScreenshot(page, 'token-form-short-session');
});

test('a mistake is told in the words of the page', async () => {
  await page.getByRole('textbox', { name: /^Commands/ }).fill('lss');
  await page.getByRole('button', { name: 'Make token' }).click();
  await page.getByText('Error: unknown command in "Commands": "lss"').waitFor(WAIT);
  assert.ok(!(await page.locator('#status').textContent())!.includes('--'));
});
