import { commandFailed } from '../../../errors.js';
import { json, type ServiceCommand } from '../shared/command.js';
import { currentTeam } from './view.js';
import { quote } from '../../rules/validate.js';

interface LeaveData {
  team: null;
}

/**
 * `team leave` — a member leaves the team it is in and is back alone in its own team, which
 * `team` then shows. The owner of a team cannot leave it (it would leave the members ownerless).
 */
export const teamLeaveCommand: ServiceCommand = {
  path: 'team leave',
  description: 'Leave the team you are a member of (its owner cannot)',
  usage: 'team leave',
  flags: [],
  args: [],
  examples: ['team leave'],
  mutates: true,
  async run(ctx) {
    const { team, role } = currentTeam(ctx);
    if (role === 'owner') {
      throw commandFailed(
        `you own team ${quote(team.name)} and cannot leave it: remove its members instead`,
      );
    }
    ctx.deps.store.removeTeamMember(team.id, ctx.principal.accountId);
    const data: LeaveData = { team: null };
    return json(data);
  },
};
