// The team section: `team`, `team members`, inviting and removing members, the invitations the
// account holds (accept, decline), leaving.
import { q, run } from './api.js';
import { act } from './actions.js';
import { button, field, fill, h, table } from './dom.js';
import type { Section } from './main.js';
import { showFailure } from './refusals.js';

interface Team {
  team: { name: string; owner: string; members: number } | null;
  role?: string;
  /** Absent from a server older than team invitations. */
  invitations?: { team: string; owner: string; invited_at: string }[];
}

export const showTeam: Section = (main) => {
  const body = h('div');
  const email = field('Email', { name: 'member', type: 'email' });
  const refresh = async () => {
    try {
      const team = await run<Team>('team');
      const { members } = await run<{
        members: { email: string; role: string; joined_at: string | null; invited_at?: string }[];
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
          ['Email', 'Role', 'Since', 'Actions'],
          members.map((m) => [
            m.email,
            m.role,
            m.joined_at ?? m.invited_at ?? '',
            m.role === 'owner'
              ? ''
              : button(
                  m.role === 'invited' ? 'Withdraw' : 'Remove',
                  () => void act(`team remove ${q(m.email)}`, 'Member removed', refresh),
                  `Remove ${m.email} from the team`,
                ),
          ]),
        ),
        table(
          'Invitations to other teams',
          ['Team', 'Owner', 'Invited', 'Actions'],
          (team.invitations ?? []).map((i) => [
            i.team,
            i.owner,
            i.invited_at,
            h(
              'span',
              {},
              button(
                'Accept',
                () => void act(`team accept ${q(i.owner)}`, `Joined ${i.team}`, refresh),
                `Join ${i.team}`,
              ),
              button(
                'Decline',
                () => void act(`team decline ${q(i.owner)}`, 'Invitation declined', refresh),
                `Decline the invitation to ${i.team}`,
              ),
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
      'aria-label': 'Invite a team member',
      onsubmit: (ev: Event) => {
        ev.preventDefault();
        void act(`team add ${q(email.input.value)}`, 'Invitation sent', refresh);
      },
    },
    email.wrap,
    h('button', { type: 'submit' }, 'Invite'),
  );
  fill(main, h('h2', {}, 'Team'), body, form);
  void refresh();
};
