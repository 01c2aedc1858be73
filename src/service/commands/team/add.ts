import { teamMembershipCommand } from '../shared/team-membership.js';

/** `team add <email>` — bring an existing account into your team (team owner only). */
export const teamAddCommand = teamMembershipCommand(
  'add',
  'Add an existing account to your team (team owner only)',
  'team add ada@example.com',
);
