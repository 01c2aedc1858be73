import { commandFailed, type ExectlError } from '../../../errors.js';
import { StoreConflictError, type Store, type TeamMember } from '../../store/index.js';
import { json, type ServiceCommand } from '../shared/command.js';
import { ownTeam, toEntry, type MemberEntry } from './view.js';
import { quote } from '../../rules/validate.js';

interface MembersData {
  members: MemberEntry[];
}

/**
 * `team add <email>` and `team remove <email>`, which differ only in the store change. Owner
 * only; the email must belong to an account on this server. An account is in one team at a
 * time: joining moves it out of its own team, leaving moves it back (see the store). An
 * account that belongs to another team, or owns one with other members, cannot be added; the
 * refusal reads the same as for an email with no account, so `team add` cannot be used to
 * find out which emails have accounts.
 */
function teamMembershipCommand(
  action: 'add' | 'remove',
  description: string,
  example: string,
): ServiceCommand {
  return {
    path: `team ${action}`,
    description,
    usage: `team ${action} <email>`,
    flags: [],
    args: [{ name: 'email', required: true }],
    examples: [example],
    mutates: true,
    async run(ctx, input) {
      const email = input.args[0] ?? '';
      const { team } = ownTeam(ctx, action === 'add' ? 'add members' : 'remove members');
      const { store } = ctx.deps;
      const account = store.findAccountByEmail(email);
      let members;
      if (action === 'add') {
        if (account === undefined) throw cannotAdd(email);
        members = addMember(store, team.id, account.id, email);
      } else {
        if (account === undefined) throw commandFailed(`no account for ${quote(email)}`);
        members = store.removeTeamMember(team.id, account.id);
      }
      const data: MembersData = { members: members.map(toEntry) };
      return json(data);
    },
  };
}

/** The one refusal of `team add`, whatever the reason (no account oracle). */
function cannotAdd(email: string): ExectlError {
  return commandFailed(
    `cannot add ${quote(email)}: no such account, or it owns or belongs to another team`,
  );
}

function addMember(store: Store, teamId: number, accountId: number, email: string): TeamMember[] {
  try {
    return store.addTeamMember(teamId, accountId);
  } catch (error) {
    // Already in this team: the caller sees its own members, so saying so reveals nothing.
    if (error instanceof StoreConflictError && error.kind !== 'duplicate') throw cannotAdd(email);
    throw error;
  }
}

/** `team add <email>` — bring an existing account into your team (team owner only). */
export const teamAddCommand = teamMembershipCommand(
  'add',
  'Add an existing account to your team (team owner only)',
  'team add ada@example.com',
);

/** `team remove <email>` — send a member back to its own team (team owner only). */
export const teamRemoveCommand = teamMembershipCommand(
  'remove',
  'Remove a member from your team (team owner only)',
  'team remove ada@example.com',
);
