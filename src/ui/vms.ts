// The VMs section: the account's VMs (`ls`), their limits and live usage (`stat`), and their
// actions — new, restart, pause, resume, rm, cp, resize, share — each one command line.
import { q, run } from './api.js';
import { act } from './actions.js';
import { button, field, fill, h, table } from './dom.js';
import type { Section } from './main.js';
import { refreshUsage, showVmDetails } from './vm-details.js';
import { showFailure } from './refusals.js';

/** One VM as `ls` lists it. */
export interface VmRow {
  vm_name: string;
  emoji: string;
  status: string;
  tags: string[];
  comment: string;
  https_url: string;
  ssh_dest: string | null;
  ssh_port: number | null;
}

/** The line that opens the VM's SSH server: `ssh -p 7022 vm+web@localhost` (no -p for 22). */
function sshLine(vm: VmRow): string {
  if (vm.ssh_dest === null) return '—';
  const port = vm.ssh_port === null || vm.ssh_port === 22 ? '' : `-p ${vm.ssh_port} `;
  return `ssh ${port}${vm.ssh_dest}`;
}

/** How often the list and the open VM's usage are read again. */
const REFRESH_MS = 5_000;

export const showVms: Section = (main, open) => {
  const list = h('div', { id: 'vm-list' });
  const details = h('section', { 'aria-label': 'VM details' });
  let shown: string | undefined;
  const name = field('Name', { name: 'name', placeholder: 'random when empty' });
  const tag = field('Tag', { name: 'tag' });
  const comment = field('Comment', { name: 'comment' });
  const form = h(
    'form',
    {
      'aria-label': 'New VM',
      onsubmit: (ev: Event) => {
        ev.preventDefault();
        const words = ['new'];
        if (name.input.value !== '') words.push('--name', q(name.input.value));
        if (tag.input.value !== '') words.push('--tag', q(tag.input.value));
        if (comment.input.value !== '') words.push('--comment', q(comment.input.value));
        void act(words.join(' '), 'VM created', refresh);
      },
    },
    name.wrap,
    tag.wrap,
    comment.wrap,
    h('button', { type: 'submit' }, 'Create VM'),
  );

  const refresh = async (withDetails = true): Promise<void> => {
    try {
      const { vms } = await run<{ vms: VmRow[] }>('ls');
      fill(list, vmTable(vms));
      if (shown !== undefined && !vms.some((vm) => vm.vm_name === shown)) {
        shown = undefined;
        fill(details);
      }
    } catch (err) {
      return showFailure(list, err);
    }
    if (shown === undefined) return;
    try {
      // The timer redraws only the usage: the panel's forms keep what is being typed.
      if (withDetails) await showVmDetails(details, shown, refresh, open);
      else await refreshUsage(details, shown);
    } catch (err) {
      showFailure(details, err);
    }
  };
  const vmTable = (vms: VmRow[]) =>
    table(
      `Your VMs (${vms.length})`,
      ['Name', 'Status', 'Tags', 'Comment', 'URL', 'SSH', 'Actions'],
      vms.map((vm) => [
        `${vm.emoji} ${vm.vm_name}`,
        vm.status,
        vm.tags.join(', '),
        vm.comment,
        h('a', { href: vm.https_url, target: '_blank', rel: 'noopener noreferrer' }, vm.https_url),
        h('code', {}, sshLine(vm)),
        h(
          'span',
          {},
          button(
            'Details',
            () => {
              shown = vm.vm_name;
              void refresh();
            },
            `Details of ${vm.vm_name}`,
          ),
          button('Terminal', () => open('Terminal', vm.vm_name), `Terminal in ${vm.vm_name}`),
          button(
            'Remove',
            () => {
              if (confirm(`Remove VM ${vm.vm_name} and its disk?`)) {
                void act(`rm ${q(vm.vm_name)}`, `VM ${vm.vm_name} removed`, refresh);
              }
            },
            `Remove ${vm.vm_name}`,
          ),
        ),
      ]),
    );

  fill(main, h('h2', {}, 'VMs'), form, list, details);
  void refresh();
  const timer = setInterval(() => void refresh(false), REFRESH_MS);
  return () => clearInterval(timer);
};
