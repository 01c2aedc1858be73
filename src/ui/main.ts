// The dashboard page (SPEC §11): a thin client of the service's dispatcher. Each section is a
// small module that runs command lines and draws their JSON.
import { ApiError, run, signOut } from './api.js';
import { announce, button, fill, h } from './dom.js';
import { showIntegrations } from './integrations.js';
import { showKeys } from './keys.js';
import { showRequests } from './requests.js';
import { showTeam } from './team.js';
import { showTerminal } from './terminal.js';
import { showVms } from './vms.js';
import { showWorkbench } from './workbench.js';
import { lackingNote, refusedCommand } from './refusals.js';

/** A section draws itself into `main`; what it returns is called when another is shown. */
export type Section = (
  main: HTMLElement,
  open: (name: string, arg?: string) => void,
  arg?: string,
) => (() => void) | void;

const SECTIONS: [string, Section][] = [
  ['VMs', showVms],
  ['Terminal', showTerminal],
  ['SSH keys', showKeys],
  ['Integrations', showIntegrations],
  ['Team', showTeam],
  ['Requests', showRequests],
  ['Tokens', showWorkbench],
];

let leave: (() => void) | void;

function open(name: string, arg?: string): void {
  if (typeof leave === 'function') leave();
  const main = document.getElementById('main')!;
  fill(main);
  announce('');
  for (const b of document.querySelectorAll('#nav button')) {
    if (b.textContent === name) b.setAttribute('aria-current', 'page');
    else b.removeAttribute('aria-current');
  }
  const section = SECTIONS.find(([n]) => n === name)![1];
  leave = section(main, open, arg);
}

async function start(): Promise<void> {
  let me: { email: string } | undefined;
  try {
    me = await run<{ email: string }>('whoami');
  } catch (err) {
    // A session that may not run whoami may still do the rest: the header says what it lacks.
    if (refusedCommand(err) !== undefined) me = undefined;
    else if (err instanceof ApiError && err.status === 401) {
      fill(
        document.getElementById('main')!,
        h('h2', {}, 'Not signed in'),
        h(
          'p',
          {},
          'Run ',
          h('code', {}, 'exectl run browser'),
          ' (or ',
          h('code', {}, 'browser'),
          ' over SSH) and open the link it gives.',
        ),
      );
      return;
    } else throw err;
  }
  fill(
    document.getElementById('who')!,
    me === undefined ? lackingNote('whoami') : `Signed in as ${me.email} `,
    button('Sign out', () => void signOut().then(() => location.reload())),
  );
  fill(
    document.getElementById('nav')!,
    ...SECTIONS.map(([name]) => button(name, () => open(name))),
  );
  open('VMs');
}

void start().catch((err: unknown) => announce(String(err), true));
