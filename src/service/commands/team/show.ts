import { json, type ServiceCommand } from '../shared/command.js';
import { currentTeam } from './view.js';
import type { TeamRole } from '../../store/index.js';

interface TeamData {
  team: { name: string; owner: string; members: number };
  role: TeamRole;
}

/**
 * `team` — the team the caller is in: its name, its owner's email, how many accounts are in
 * it, and the caller's role. Every account starts as the owner of its own team.
 */
export const teamCommand: ServiceCommand = {
  path: 'team',
  description: 'Show your team: name, owner, number of members, and your role',
  usage: 'team',
  flags: [],
  args: [],
  examples: ['team'],
  mutates: false,
  async run(ctx) {
    const { team, role } = currentTeam(ctx);
    const members = ctx.deps.store.listTeamMembers(team.id).length;
    const data: TeamData = {
      team: { name: team.name, owner: team.ownerEmail, members },
      role,
    };
    return json(data);
  },
};
