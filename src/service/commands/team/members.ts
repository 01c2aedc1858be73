import { json, type ServiceCommand } from '../shared/command.js';
import { currentTeam, memberEntries, type MemberEntry } from './view.js';

interface MembersData {
  members: MemberEntry[];
}

/** `team members` — everyone in the caller's team, owner first, then by joining time. */
export const teamMembersCommand: ServiceCommand = {
  path: 'team members',
  description: 'List the members of your team, owner first',
  usage: 'team members',
  flags: [],
  args: [],
  examples: ['team members'],
  mutates: false,
  async run(ctx) {
    const data: MembersData = { members: memberEntries(ctx, currentTeam(ctx).team.id) };
    return json(data);
  },
};
