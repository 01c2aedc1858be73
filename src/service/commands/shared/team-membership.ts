import { commandFailed } from '../../../errors.js';
import { json, type ServiceCommand } from './command.js';
import { memberTable, ownTeam, toEntry, type MemberEntry } from './team-view.js';
import { quote } from './validate.js';

interface MembersData {
  members: MemberEntry[];
}

/**
 * `team add <email>` and `team remove <email>`, which differ only in the store change. Owner
 * only; the email must belong to an account on this server. An account is in one team at a
 * time: joining moves it out of its own team, leaving moves it back (see the store).
 */
export function teamMembershipCommand(
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
      if (account === undefined) throw commandFailed(`no account for ${quote(email)}`);
      const members =
        action === 'add'
          ? store.addTeamMember(team.id, account.id)
          : store.removeTeamMember(team.id, account.id);
      const data: MembersData = { members: members.map(toEntry) };
      return json(data);
    },
    renderText(data: MembersData) {
      return memberTable(data.members);
    },
  };
}
