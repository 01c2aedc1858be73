import { json, type ServiceCommand } from '../shared/command.js';
import { teamData } from './view.js';

/**
 * `team` — the team the caller is in: its name, its owner's email, how many accounts are in
 * it, the caller's role, and the invitations to other teams it holds. Every account starts as
 * the owner of its own team.
 */
export const teamCommand: ServiceCommand = {
  path: 'team',
  description: 'Show your team: name, owner, number of members, your role and invitations',
  usage: 'team',
  flags: [],
  args: [],
  examples: ['team'],
  mutates: false,
  async run(ctx) {
    return json(teamData(ctx));
  },
};
