// The dashboard in a real browser (SPEC §11): sign in by link, see the VM list, create and
// remove a VM through the page (and see it in `ls` over /exec and in the live log), run a
// command in the terminal, resize it, decode a token; another account's link sees only its
// own VMs; every control has an accessible name; the page holds at 80% and 200% zoom. A
// screenshot of each page is kept in test-results/dashboard/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { GeneratedKey } from '../../helpers/keys.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { keepScreenshot, launchBrowser, unnamedControls } from './browser.js';
import { askForLink, raw } from './sign-in.js';

/** Every wait is bounded, and wide: the machine is shared. */
const WAIT = { timeout: 60_000 };

describe('the dashboard in a browser', () => {
  let svc: TestService;
  let browser: Browser;
  let page: Page;
  let other: GeneratedKey;
  let ownerToken: string;
  let statToken: string;

  before(async () => {
    // The runtime users get (machine VMs for a root server): the terminal is their real shell.
    svc = await startTestService({ runtime: 'auto' });
    other = await svc.addAccount('other@example.com');
    ownerToken = await svc.token('{"cmds":["ls","new","rm"]}');
    statToken = await svc.token('{"cmds":["stat"]}');
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(WAIT.timeout);
    // `rm` asks for confirmation.
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(await askForLink(svc));
  });
  after(async () => {
    await browser?.close();
    await svc?.stop();
  });

  const lsOverExec = async (): Promise<string[]> => {
    const answer = await raw(svc, 'POST', '/exec', { Authorization: `Bearer ${ownerToken}` }, 'ls');
    return (JSON.parse(answer.body) as { vms: { vm_name: string }[] }).vms.map((v) => v.vm_name);
  };

  test('the link signs in and lands on the VM list', async () => {
    assert.equal(new URL(page.url()).pathname, '/_/');
    await page.getByText('Signed in as owner@example.com').waitFor(WAIT);
    await page.getByRole('table', { name: 'Your VMs (0)' }).waitFor(WAIT);
    await keepScreenshot(page, 'vms-empty');
  });

  test('a VM made in the page is in ls over /exec, and in the live log', async () => {
    await page.getByRole('textbox', { name: 'Name' }).fill('web');
    await page.getByRole('button', { name: 'Create VM' }).click();
    await page.getByRole('table', { name: 'Your VMs (1)' }).waitFor(WAIT);
    await page.getByRole('cell', { name: /web$/ }).first().waitFor(WAIT);
    assert.deepEqual(await lsOverExec(), ['web']);
    await page.getByRole('button', { name: 'Details of web' }).click();
    await page.getByRole('table', { name: 'Limits and usage of web' }).waitFor(WAIT);
    await keepScreenshot(page, 'vm-details');
    await page.getByRole('button', { name: 'Requests' }).click();
    const cell = (name: string) => page.getByRole('cell', { name, exact: true });
    const row = page
      .getByRole('row')
      .filter({ has: cell('new') })
      .filter({ has: cell('200') })
      .filter({ has: cell('dashboard') });
    await row.first().waitFor(WAIT);
    await keepScreenshot(page, 'requests');
  });

  test('the terminal runs a command in the VM, and follows a resize', async () => {
    await page.getByRole('button', { name: 'VMs' }).click();
    await page.getByRole('button', { name: 'Terminal in web' }).first().click();
    await page.getByText('Connected to web').waitFor(WAIT);
    const screen = page.locator('#terminal .xterm-rows');
    await page.keyboard.type('echo $((6*7))\n');
    await screen
      .getByText(/^42\s*$/)
      .first()
      .waitFor(WAIT);
    await page.keyboard.type('stty size\n');
    const sizeBefore = await sizeShown(page, '');
    await page.setViewportSize({ width: 900, height: 700 });
    await page.keyboard.type('clear; stty size\n');
    const sizeAfter = await sizeShown(page, sizeBefore);
    assert.notEqual(sizeAfter, sizeBefore);
    await keepScreenshot(page, 'terminal');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test('a paste larger than a WebSocket frame reaches the shell whole', async () => {
    const screen = page.locator('#terminal .xterm-rows');
    // Pasted once the shell has left its prompt: at the prompt bash asks for bracketed paste,
    // and xterm would wrap the text in its markers.
    await page.keyboard.type('stty -echo; echo paste-now; cat > /tmp/pasted; stty echo\n');
    await screen
      .getByText(/^paste-now\s*$/)
      .first()
      .waitFor(WAIT);
    // 2,000 lines of 64 bytes: 128,000 bytes in one paste, two frames and a bit.
    const lines = Array.from(
      { length: 2000 },
      (_, i) => `${String(i).padStart(4, '0')} ${'x'.repeat(58)}\n`,
    );
    // As the browser delivers a paste (Ctrl+V): one paste event on xterm's textarea.
    await page.evaluate(`(() => {
      const data = new DataTransfer();
      data.setData('text/plain', ${JSON.stringify(lines.join(''))});
      const area = document.querySelector('#terminal textarea');
      area.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true }));
    })()`);
    await page.keyboard.press('Control+D');
    await page.keyboard.type('wc -c < /tmp/pasted\n');
    await screen
      .getByText(/^128000\s*$/)
      .first()
      .waitFor(WAIT);
  });

  test('pause, resume, resize and cp through the page change what ls and stat say', async () => {
    await page.getByRole('button', { name: 'VMs', exact: true }).click();
    await page.getByRole('button', { name: 'Details of web' }).click();
    await page.getByRole('button', { name: 'Pause web' }).click();
    await page.getByRole('heading', { name: 'VM web: paused' }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Resume web' }).click();
    await page.getByRole('heading', { name: 'VM web: running' }).waitFor(WAIT);
    await page.getByRole('textbox', { name: 'Memory (e.g. 2G)' }).fill('1G');
    await page.getByRole('button', { name: 'Resize' }).click();
    await page.getByText('web resized').waitFor(WAIT);
    const stat = await raw(
      svc,
      'POST',
      '/exec',
      { Authorization: `Bearer ${statToken}` },
      'stat web',
    );
    assert.equal(JSON.parse(stat.body).limits.memory_bytes, 1024 ** 3, stat.body);
    await page.getByRole('textbox', { name: 'Name of the copy' }).fill('web-copy');
    await page.getByRole('button', { name: 'Copy VM' }).click();
    await page.getByRole('table', { name: 'Your VMs (2)' }).waitFor(WAIT);
    assert.deepEqual((await lsOverExec()).sort(), ['web', 'web-copy']);
    await page.getByRole('button', { name: 'Remove web-copy' }).click();
    await page.getByRole('table', { name: 'Your VMs (1)' }).waitFor(WAIT);
  });

  test('the workbench decodes a token and checks it against the account keys', async () => {
    await page.getByRole('button', { name: 'Tokens' }).click();
    const token = await svc.token('{"exp":4000000000,"cmds":["ls"]}');
    await page.getByRole('textbox', { name: 'Token to decode and check' }).fill(token);
    await page.getByRole('button', { name: 'Decode' }).click();
    await page.getByText('"signature_verified": true').waitFor(WAIT);
    await page.getByText('"effective_cmds": [').waitFor(WAIT);
    await keepScreenshot(page, 'tokens');
    assert.ok(!(await page.content()).includes(token.slice(20)), 'the pasted token is not echoed');
  });

  test('the workbench makes a svc1 and its curl line; the token works on /exec', async () => {
    await page.getByRole('button', { name: 'Tokens', exact: true }).click();
    await page.getByRole('textbox', { name: /^Commands/ }).fill('whoami');
    await page.getByRole('combobox', { name: 'Expires in' }).selectOption('1h');
    await page.getByRole('button', { name: 'Make token' }).click();
    const curl = page.getByRole('textbox', { name: 'curl line' });
    await curl.waitFor(WAIT);
    const line = await curl.inputValue();
    const token = /Bearer (svc1\.[A-Z2-7]{26})'/.exec(line)?.[1];
    assert.ok(token !== undefined, line);
    assert.equal(
      line,
      `curl -X POST ${svc.url}/exec -H 'Authorization: Bearer ${token}' -d whoami`,
    );
    const who = await raw(svc, 'POST', '/exec', { Authorization: `Bearer ${token}` }, 'whoami');
    assert.equal(who.status, 200, who.body);
    assert.ok(!(await page.content()).includes('svc0.'), 'no svc0 in the page');
    await keepScreenshot(page, 'tokens-made');
  });

  test('another account sees only its own VMs', async () => {
    const second = await browser.newPage();
    await second.goto(await askForLink(svc, other));
    await second.getByText('Signed in as other@example.com').waitFor(WAIT);
    await second.getByRole('table', { name: 'Your VMs (0)' }).waitFor(WAIT);
    assert.equal(await second.getByText('web').count(), 0);
    await second.close();
  });

  test('every control of every section has an accessible name', async () => {
    for (const section of [
      'VMs',
      'Terminal',
      'SSH keys',
      'Integrations',
      'Team',
      'Requests',
      'Tokens',
    ]) {
      await page.getByRole('button', { name: section, exact: true }).click();
      await page.getByRole('heading', { level: 2, name: section }).waitFor(WAIT);
      await page.waitForLoadState('networkidle');
      await keepScreenshot(page, `section-${section.toLowerCase().replace(' ', '-')}`);
      assert.deepEqual(await unnamedControls(page), [], section);
    }
  });

  test('at 80% and 200% zoom every section button stays on screen, with no page-wide scroll', async () => {
    for (const [zoom, width] of [
      [0.8, 1600],
      [2, 640],
    ] as const) {
      const zoomed = await browser.newPage({
        viewport: { width, height: 800 },
        deviceScaleFactor: zoom,
      });
      await zoomed.goto(await askForLink(svc));
      await zoomed.getByRole('table', { name: /Your VMs/ }).waitFor(WAIT);
      for (const name of ['VMs', 'Terminal', 'Tokens']) {
        const box = await zoomed.getByRole('button', { name, exact: true }).boundingBox();
        assert.ok(box !== null && box.x >= 0 && box.x + box.width <= width, `${name} at ${zoom}`);
      }
      const overflow = (await zoomed.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      )) as number;
      assert.ok(overflow <= 0, `page scrolls sideways by ${overflow}px at ${zoom * 100}%`);
      await keepScreenshot(zoomed, `vms-zoom-${zoom * 100}`);
      await zoomed.close();
    }
  });

  test('a VM removed in the page is gone from ls over /exec', async () => {
    await page.getByRole('button', { name: 'VMs', exact: true }).click();
    await page.getByRole('button', { name: 'Remove web' }).click();
    await page.getByRole('table', { name: 'Your VMs (0)' }).waitFor(WAIT);
    assert.deepEqual(await lsOverExec(), []);
  });
});

/** The last `stty size` answer on the terminal's screen that differs from `previous`. */
async function sizeShown(page: Page, previous: string): Promise<string> {
  const deadline = Date.now() + WAIT.timeout;
  while (Date.now() < deadline) {
    const text = await page.locator('#terminal .xterm-rows').innerText();
    const sizes = [...text.matchAll(/^(\d+ \d+)\s*$/gm)].map((m) => m[1]!);
    const last = sizes.at(-1);
    if (last !== undefined && last !== previous) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no new stty size on the terminal (previous: ${previous || 'none'})`);
}
