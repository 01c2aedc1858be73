import { commandFailed, type ExectlError } from '../../../errors.js';
import { StoreConflictError } from '../../store/index.js';
import { json, type ServiceCommand } from '../shared/command.js';
import { memberEntries, ownTeam, type MemberEntry } from './view.js';
import { quote } from '../../rules/validate.js';

interface MembersData {
  members: MemberEntry[];
}

/**
 * `team add <email>` — invite an existing account into your team (owner only). Nothing of the
 * account moves: it joins only when it runs `team accept <owner-email>` (SPEC §3). An account
 * that belongs to another team, or owns one with other members, cannot be invited; that refusal
 * reads the same as for an email with no account, so `team add` cannot be used to find out
 * which emails have accounts, or where they are.
 */
export const teamAddCommand: ServiceCommand = {
  path: 'team add',
  description: 'Invite an existing account to your team; it joins with team accept (owner only)',
  usage: 'team add <email>',
  flags: [],
  args: [{ name: 'email', required: true }],
  examples: ['team add ada@example.com'],
  mutates: true,
  async run(ctx, input) {
    const email = input.args[0] ?? '';
    const { team } = ownTeam(ctx, 'add members');
    const { store } = ctx.deps;
    const account = store.findAccountByEmail(email);
    if (account === undefined) throw cannotAdd(email);
    try {
      store.inviteToTeam(team.id, account.id);
    } catch (error) {
      // Already in this team: the caller sees its own members, so saying so reveals nothing.
      if (error instanceof StoreConflictError && error.kind !== 'duplicate') throw cannotAdd(email);
      throw error;
    }
    const data: MembersData = { members: memberEntries(ctx, team.id) };
    return json(data);
  },
};

/**
 * `team remove <email>` — withdraw an invitation, or send a member back to its own team (owner
 * only). The account's VMs, keys and their reflection secrets are left as they are. An email
 * that is neither is refused in one sentence, whether or not it has an account.
 */
export const teamRemoveCommand: ServiceCommand = {
  path: 'team remove',
  description: 'Remove a member from your team, or withdraw an invitation (owner only)',
  usage: 'team remove <email>',
  flags: [],
  args: [{ name: 'email', required: true }],
  examples: ['team remove ada@example.com'],
  mutates: true,
  async run(ctx, input) {
    const email = input.args[0] ?? '';
    const { team } = ownTeam(ctx, 'remove members');
    const { store } = ctx.deps;
    const account = store.findAccountByEmail(email);
    const notMember = () =>
      commandFailed(`${quote(email)} is not a member of team ${quote(team.name)}`);
    if (account === undefined) throw notMember();
    if (!store.dropTeamInvitation(team.id, account.id)) {
      try {
        store.removeTeamMember(team.id, account.id);
      } catch (error) {
        if (error instanceof StoreConflictError && error.kind === 'not_found') throw notMember();
        throw error;
      }
    }
    const data: MembersData = { members: memberEntries(ctx, team.id) };
    return json(data);
  },
};

/** The one refusal of `team add`, whatever the reason (no account oracle). */
function cannotAdd(email: string): ExectlError {
  return commandFailed(
    `cannot add ${quote(email)}: no such account, or it owns or belongs to another team`,
  );
}
