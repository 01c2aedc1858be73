// One VM's panel: limits and live usage (`stat`), and the actions that need more than a click.
import { q, run } from './api.js';
import { act, size } from './actions.js';
import { button, field, fill, h, table } from './dom.js';

interface Stat {
  status: string;
  limits: {
    cpus: number | null;
    memory_bytes: number | null;
    pids: number | null;
    disk_bytes: number | null;
  };
  usage: {
    memory_bytes: number | null;
    pids: number | null;
    disk_bytes: number | null;
    cpu_seconds: number | null;
  };
}

interface Share {
  visibility: string;
  port: number;
  url: string;
  users: { email: string }[];
}

/** Draws VM `name`'s panel into `el`; `changed` redraws the list after an action. */
export async function showVmDetails(
  el: HTMLElement,
  name: string,
  changed: () => void,
  open: (section: string, arg?: string) => void,
): Promise<void> {
  const [stat, shares] = await Promise.all([
    run<Stat>(`stat ${q(name)}`),
    run<{ shares: Share[] }>(`share show ${q(name)}`).catch(() => ({ shares: [] as Share[] })),
  ]);
  const share = shares.shares[0];
  const vm = q(name);
  const cpu = field('CPUs', { name: 'cpu', inputmode: 'decimal' });
  const memory = field('Memory (e.g. 2G)', { name: 'memory' });
  const disk = field('Disk (e.g. 10G)', { name: 'disk' });
  const copyName = field('Name of the copy', { name: 'copy' });
  const email = field('Share with (email)', { name: 'email', type: 'email' });
  const port = field('Port', {
    name: 'port',
    inputmode: 'numeric',
    value: String(share?.port ?? ''),
  });
  const resize = () => {
    const words = ['resize', vm];
    if (cpu.input.value !== '') words.push('--cpu', q(cpu.input.value));
    if (memory.input.value !== '') words.push('--memory', q(memory.input.value));
    if (disk.input.value !== '') words.push('--disk', q(disk.input.value));
    void act(words.join(' '), `${name} resized`, changed);
  };
  const usage = h('div', {}, usageTable(name, stat));
  fill(
    el,
    h('h3', {}, `VM ${name}: ${stat.status}`),
    usage,
    h(
      'div',
      { role: 'group', 'aria-label': `Actions on ${name}` },
      button(
        'Restart',
        () => void act(`restart ${vm}`, `${name} restarted`, changed),
        `Restart ${name}`,
      ),
      button('Pause', () => void act(`pause ${vm}`, `${name} paused`, changed), `Pause ${name}`),
      button(
        'Resume',
        () => void act(`resume ${vm}`, `${name} resumed`, changed),
        `Resume ${name}`,
      ),
      button('Terminal', () => open('Terminal', name), `Terminal in ${name}`),
    ),
    h(
      'form',
      { 'aria-label': `Resize ${name}`, onsubmit: (ev: Event) => (ev.preventDefault(), resize()) },
      cpu.wrap,
      memory.wrap,
      disk.wrap,
      h('button', { type: 'submit' }, 'Resize'),
    ),
    h(
      'form',
      {
        'aria-label': `Copy ${name}`,
        onsubmit: (ev: Event) => {
          ev.preventDefault();
          const to = copyName.input.value === '' ? '' : ` ${q(copyName.input.value)}`;
          void act(`cp ${vm}${to}`, `${name} copied`, changed);
        },
      },
      copyName.wrap,
      h('button', { type: 'submit' }, 'Copy VM'),
    ),
    h('h4', {}, 'Sharing'),
    h(
      'p',
      {},
      share === undefined
        ? 'not shared'
        : `${share.visibility}, port ${share.port}, ${share.url}; users: ${share.users.map((u) => u.email).join(', ') || 'none'}`,
    ),
    h(
      'div',
      { role: 'group', 'aria-label': `Sharing of ${name}` },
      button(
        'Make public',
        () => void act(`share set-public ${vm}`, `${name} is public`, changed),
        `Make ${name} public`,
      ),
      button(
        'Make private',
        () => void act(`share set-private ${vm}`, `${name} is private`, changed),
        `Make ${name} private`,
      ),
    ),
    h(
      'form',
      {
        'aria-label': `Port of ${name}`,
        onsubmit: (ev: Event) => {
          ev.preventDefault();
          void act(`share port ${vm} ${q(port.input.value)}`, `${name} port set`, changed);
        },
      },
      port.wrap,
      h('button', { type: 'submit' }, 'Set port'),
    ),
    h(
      'div',
      { role: 'group', 'aria-label': `Users ${name} is shared with` },
      ...(share?.users ?? []).map((u) =>
        button(
          `Stop sharing with ${u.email}`,
          () =>
            void act(
              `share remove ${vm} ${q(u.email)}`,
              `${name} no longer shared with ${u.email}`,
              changed,
            ),
        ),
      ),
    ),
    h(
      'form',
      {
        'aria-label': `Share ${name} with a user`,
        onsubmit: (ev: Event) => {
          ev.preventDefault();
          void act(`share add ${vm} ${q(email.input.value)}`, `${name} shared`, changed);
        },
      },
      email.wrap,
      h('button', { type: 'submit' }, 'Share'),
    ),
  );
}

/** Reads VM `name`'s usage again into its panel's table, leaving the forms as they are. */
export async function refreshUsage(el: HTMLElement, name: string): Promise<void> {
  const table = el.querySelector('table');
  if (table === null) return;
  table.replaceWith(usageTable(name, await run<Stat>(`stat ${q(name)}`)));
}

function usageTable(name: string, stat: Stat): HTMLTableElement {
  return table(
    `Limits and usage of ${name}`,
    ['', 'CPUs', 'Memory', 'Processes', 'Disk', 'CPU time'],
    [
      [
        'Limit',
        String(stat.limits.cpus ?? '—'),
        size(stat.limits.memory_bytes),
        String(stat.limits.pids ?? '—'),
        size(stat.limits.disk_bytes),
        '',
      ],
      [
        'Used',
        '',
        size(stat.usage.memory_bytes),
        String(stat.usage.pids ?? '—'),
        size(stat.usage.disk_bytes),
        `${stat.usage.cpu_seconds ?? '—'} s`,
      ],
    ],
  );
}
