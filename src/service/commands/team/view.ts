// The caller's team and the JSON shape of its members (SPEC §3 `team ...`).
import { commandFailed, notOwner } from '../../../errors.js';
import type { AccountTeam, TeamRole } from '../../store/index.js';
import type { ServiceContext } from '../shared/command.js';
import { quote } from '../../rules/validate.js';

/** A team's member, or an account invited to it (`role` `invited`, not yet joined). */
export type MemberEntry =
  | { email: string; role: TeamRole; joined_at: string }
  | { email: string; role: 'invited'; joined_at: null; invited_at: string };

/** The team the caller is in now, and its role there. */
export function currentTeam(ctx: ServiceContext): AccountTeam {
  const team = ctx.deps.store.getTeamOfAccount(ctx.principal.accountId);
  // The principal's account was found when the request was authenticated; only a concurrent
  // removal of the account gets here.
  if (team === undefined) throw commandFailed('your account no longer exists');
  return team;
}

/**
 * The caller's team when the caller owns it.
 * @throws 422 `only the owner of team "x" can <what>`.
 */
export function ownTeam(ctx: ServiceContext, what: string): AccountTeam {
  const current = currentTeam(ctx);
  if (current.role !== 'owner') {
    const message = `only the owner of team ${quote(current.team.name)} can ${what}`;
    throw notOwner(message, current.team.ownerEmail);
  }
  return current;
}

/** The team's members, owner first, then the accounts invited to it, as the commands answer. */
export function memberEntries(ctx: ServiceContext, teamId: number): MemberEntry[] {
  const { store } = ctx.deps;
  const members: MemberEntry[] = store.listTeamMembers(teamId).map((member) => ({
    email: member.email,
    role: member.role,
    joined_at: member.joinedAt,
  }));
  const invited: MemberEntry[] = store.listTeamInvitees(teamId).map((invitee) => ({
    email: invitee.email,
    role: 'invited',
    joined_at: null,
    invited_at: invitee.invitedAt,
  }));
  return [...members, ...invited];
}

/** An invitation the caller holds, as `team` and `team decline` answer it. */
export interface InvitationEntry {
  team: string;
  owner: string;
  invited_at: string;
}

/** The invitations the caller holds, oldest first. */
export function invitationEntries(ctx: ServiceContext): InvitationEntry[] {
  return ctx.deps.store.listInvitationsOf(ctx.principal.accountId).map((invitation) => ({
    team: invitation.teamName,
    owner: invitation.ownerEmail,
    invited_at: invitation.invitedAt,
  }));
}

export interface TeamData {
  team: { name: string; owner: string; members: number };
  role: TeamRole;
  invitations: InvitationEntry[];
}

/** `team`'s answer: the caller's team, its role there, and the invitations it holds. */
export function teamData(ctx: ServiceContext): TeamData {
  const { team, role } = currentTeam(ctx);
  const members = ctx.deps.store.listTeamMembers(team.id).length;
  return {
    team: { name: team.name, owner: team.ownerEmail, members },
    role,
    invitations: invitationEntries(ctx),
  };
}
