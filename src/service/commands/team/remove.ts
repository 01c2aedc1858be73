import { teamMembershipCommand } from '../shared/team-membership.js';

/** `team remove <email>` — send a member back to its own team (team owner only). */
export const teamRemoveCommand = teamMembershipCommand(
  'remove',
  'Remove a member from your team (team owner only)',
  'team remove ada@example.com',
);
