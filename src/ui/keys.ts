// The SSH keys section: `ssh-key list`, add, rename and remove.
import { q, run } from './api.js';
import { act } from './actions.js';
import { button, field, fill, h, table } from './dom.js';
import type { Section } from './main.js';
import { showFailure } from './refusals.js';

interface Key {
  name: string;
  fingerprint: string;
  added_at: string;
  last_used_at: string | null;
  current: boolean;
}

export const showKeys: Section = (main) => {
  const list = h('div');
  const name = field('Name', { name: 'key-name' });
  const key = field('Public key (ssh-ed25519 AAAA…)', { name: 'public-key' });
  const refresh = async () => {
    try {
      const { ssh_keys } = await run<{ ssh_keys: Key[] }>('ssh-key list');
      fill(
        list,
        table(
          'Your SSH keys',
          ['Name', 'Fingerprint', 'Added', 'Last used', 'Actions'],
          ssh_keys.map((k) => [
            k.current ? `${k.name} (this session's)` : k.name,
            h('code', {}, k.fingerprint),
            k.added_at,
            k.last_used_at ?? 'never',
            h(
              'span',
              {},
              button(
                'Rename',
                () => {
                  const to = prompt(`New name for key ${k.name}`);
                  if (to) void act(`ssh-key rename ${q(k.name)} ${q(to)}`, 'Key renamed', refresh);
                },
                `Rename key ${k.name}`,
              ),
              button(
                'Remove',
                () => {
                  if (confirm(`Remove key ${k.name}?`))
                    void act(`ssh-key remove ${q(k.fingerprint)}`, 'Key removed', refresh);
                },
                `Remove key ${k.name}`,
              ),
            ),
          ]),
        ),
      );
    } catch (err) {
      showFailure(list, err);
    }
  };
  const form = h(
    'form',
    {
      'aria-label': 'Add an SSH key',
      onsubmit: (ev: Event) => {
        ev.preventDefault();
        const named = name.input.value === '' ? '' : `--name ${q(name.input.value)} `;
        void act(`ssh-key add ${named}${q(key.input.value)}`, 'Key added', refresh);
      },
    },
    name.wrap,
    key.wrap,
    h('button', { type: 'submit' }, 'Add key'),
  );
  fill(main, h('h2', {}, 'SSH keys'), list, form);
  void refresh();
};
