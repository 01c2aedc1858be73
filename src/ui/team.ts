// The team section: `team`, `team members`, adding and removing members, leaving.
import { q, run } from './api.js';
import { act } from './actions.js';
import { button, field, fill, h, table } from './dom.js';
import type { Section } from './main.js';
import { showFailure } from './refusals.js';

interface Team {
  team: { name: string; owner: string; members: number } | null;
  role?: string;
}

export const showTeam: Section = (main) => {
  const body = h('div');
  const email = field('Email', { name: 'member', type: 'email' });
  const refresh = async () => {
    try {
      const team = await run<Team>('team');
      const { members } = await run<{
        members: { email: string; role: string; joined_at: string }[];
      }>('team members');
      fill(
        body,
        h(
          'p',
          {},
          team.team === null
            ? 'No team.'
            : `Team ${team.team.name}, owned by ${team.team.owner}; you are ${team.role ?? 'a member'}.`,
        ),
        table(
          'Team members',
          ['Email', 'Role', 'Joined', 'Actions'],
          members.map((m) => [
            m.email,
            m.role,
            m.joined_at,
            m.role === 'owner'
              ? ''
              : button(
                  'Remove',
                  () => void act(`team remove ${q(m.email)}`, 'Member removed', refresh),
                  `Remove ${m.email} from the team`,
                ),
          ]),
        ),
        button('Leave the team', () => {
          if (confirm('Leave the team?')) void act('team leave', 'Left the team', refresh);
        }),
      );
    } catch (err) {
      showFailure(body, err);
    }
  };
  const form = h(
    'form',
    {
      'aria-label': 'Add a team member',
      onsubmit: (ev: Event) => {
        ev.preventDefault();
        void act(`team add ${q(email.input.value)}`, 'Member added', refresh);
      },
    },
    email.wrap,
    h('button', { type: 'submit' }, 'Add member'),
  );
  fill(main, h('h2', {}, 'Team'), body, form);
  void refresh();
};
