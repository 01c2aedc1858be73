// A dashboard session whose token lacks some commands (SPEC §11): with `browser, ls, new, rm`
// (no whoami) the page still lists and makes VMs, and each part that needs a missing command
// says so in place, naming it, never one error line for the whole page. A real browser.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestService, type TestService } from '../../helpers/service.js';
import { keepScreenshot, launchBrowser } from './browser.js';
import { askForLink } from './sign-in.js';

/** Every wait is bounded, and wide: the machine is shared. */
const WAIT = { timeout: 60_000 };

let svc: TestService;
let browser: Browser;
let page: Page;
before(async () => {
  svc = await startTestService();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(WAIT.timeout);
  await page.goto(await askForLink(svc, svc.owner.key, ['browser', 'ls', 'new', 'rm']));
});
after(async () => {
  await browser?.close();
  await svc?.stop();
});

const note = (command: string) =>
  page.getByRole('note').filter({ hasText: `This session may not run ${command}` });

test('without whoami: the header names what it lacks, and the VM list is there', async () => {
  await note('whoami').waitFor(WAIT);
  await page.getByRole('table', { name: 'Your VMs (0)' }).waitFor(WAIT);
  await page.getByRole('button', { name: 'Sign out' }).waitFor(WAIT);
  assert.equal(await page.getByText('Error: command not allowed').count(), 0);
});

test('it makes a VM through the page; its details mark that stat is missing', async () => {
  await page.getByRole('textbox', { name: 'Name' }).fill('web');
  await page.getByRole('button', { name: 'Create VM' }).click();
  await page.getByRole('table', { name: 'Your VMs (1)' }).waitFor(WAIT);
  await page.getByRole('button', { name: 'Details of web' }).click();
  await note('stat').waitFor(WAIT);
  // The list stays beside the mark.
  await page.getByRole('table', { name: 'Your VMs (1)' }).waitFor(WAIT);
  await keepScreenshot(page, 'lacking-commands');
});

test('a section whose command is missing says so in place', async () => {
  await page.getByRole('button', { name: 'SSH keys', exact: true }).click();
  await note('ssh-key list').waitFor(WAIT);
  await page.getByRole('button', { name: 'Team', exact: true }).click();
  await note('team').waitFor(WAIT);
});
