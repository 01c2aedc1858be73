import { commandFailed } from '../../../errors.js';
import { StoreConflictError } from '../../store/index.js';
import { json, type ServiceCommand } from '../shared/command.js';
import { quote } from '../../rules/validate.js';
import { currentTeam, invitationEntries, teamData, type InvitationEntry } from './view.js';

/**
 * `team accept <owner-email>` — join the team whose owner invited you. Refused while you are in
 * another team, or own one that has other members (leave it, or remove them, first).
 */
export const teamAcceptCommand: ServiceCommand = {
  path: 'team accept',
  description: 'Join the team whose owner invited you',
  usage: 'team accept <owner-email>',
  flags: [],
  args: [{ name: 'owner-email', required: true }],
  examples: ['team accept ada@example.com'],
  mutates: true,
  async run(ctx, input) {
    const ownerEmail = input.args[0] ?? '';
    const { store } = ctx.deps;
    const me = ctx.principal.accountId;
    const owner = store.findAccountByEmail(ownerEmail);
    const noInvitation = commandFailed(`no invitation from ${quote(ownerEmail)}: see team`);
    if (owner === undefined) throw noInvitation;
    try {
      store.acceptTeamInvitation(me, owner.id);
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error;
      if (error.kind === 'not_found') throw noInvitation;
      const { team, role } = currentTeam(ctx);
      throw commandFailed(
        role === 'member'
          ? `you are a member of team ${quote(team.name)}: run team leave first`
          : `you own team ${quote(team.name)}, which has other members: remove them first`,
      );
    }
    return json(teamData(ctx));
  },
};

interface DeclineData {
  invitations: InvitationEntry[];
}

/**
 * `team decline [<owner-email>]` — refuse the invitation of that team's owner, or every
 * invitation you hold; answers the invitations left.
 */
export const teamDeclineCommand: ServiceCommand = {
  path: 'team decline',
  description: 'Refuse an invitation to a team (every one, without an email)',
  usage: 'team decline [<owner-email>]',
  flags: [],
  args: [{ name: 'owner-email', required: false }],
  examples: ['team decline ada@example.com', 'team decline'],
  mutates: true,
  async run(ctx, input) {
    const ownerEmail = input.args[0];
    const { store } = ctx.deps;
    const me = ctx.principal.accountId;
    const held = store.listInvitationsOf(me);
    const declined =
      ownerEmail === undefined
        ? held
        : held.filter((i) => i.ownerEmail.toLowerCase() === ownerEmail.toLowerCase());
    if (ownerEmail !== undefined && declined.length === 0) {
      throw commandFailed(`no invitation from ${quote(ownerEmail)}: see team`);
    }
    for (const invitation of declined) store.dropTeamInvitation(invitation.teamId, me);
    const data: DeclineData = { invitations: invitationEntries(ctx) };
    return json(data);
  },
};
