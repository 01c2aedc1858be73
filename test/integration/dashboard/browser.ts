// A real headless Chromium (Debian's, driven by playwright-core) for the dashboard's tests,
// and the screenshots they keep as artefacts in test-results/dashboard/.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium (.ci/run installs it). */
const CHROMIUM = '/usr/bin/chromium';

/** Where screenshots of each page are kept. */
export const ARTEFACTS = resolve('test-results', 'dashboard');

/** Starts the browser: headless; as root, Chromium's own sandbox cannot start. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}

/** Keeps a screenshot of `page` as `<name>.png`. */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTEFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTEFACTS, `${name}.png`), fullPage: true });
}

/** Controls (by role) that a screen reader must be able to name. */
const CONTROLS = new Set([
  'button',
  'textbox',
  'searchbox',
  'combobox',
  'link',
  'checkbox',
  'radio',
  'spinbutton',
  'slider',
  'listbox',
  'menuitem',
  'tab',
]);

/**
 * The controls of `page` with no accessible name, as Chromium's accessibility tree (what a
 * screen reader reads) computes them: `role` and the DOM node's outer HTML head.
 */
export async function unnamedControls(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
    nodes: {
      ignored: boolean;
      role?: { value: string };
      name?: { value: string };
      backendDOMNodeId?: number;
    }[];
  };
  const unnamed: string[] = [];
  for (const node of nodes) {
    const role = node.role?.value ?? '';
    if (node.ignored || !CONTROLS.has(role)) continue;
    if ((node.name?.value ?? '').trim() !== '') continue;
    const { outerHTML } = (await cdp
      .send('DOM.getOuterHTML', { backendNodeId: node.backendDOMNodeId! })
      .catch(() => ({ outerHTML: '?' }))) as { outerHTML: string };
    unnamed.push(`${role}: ${outerHTML.slice(0, 120)}`);
  }
  await cdp.detach();
  return unnamed;
}
