// The caller's team and the JSON shape of its members (SPEC §3 `team ...`).
import { commandFailed, notOwner } from '../../../errors.js';
import type { AccountTeam, TeamRole } from '../../store/index.js';
import type { ServiceContext } from '../shared/command.js';
import { quote } from '../../rules/validate.js';

export interface MemberEntry {
  email: string;
  role: TeamRole;
  joined_at: string;
}

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

/** The team's members, owner first, as the commands answer them. */
export function memberEntries(ctx: ServiceContext, teamId: number): MemberEntry[] {
  return ctx.deps.store.listTeamMembers(teamId).map(toEntry);
}

export function toEntry(member: { email: string; role: TeamRole; joinedAt: string }): MemberEntry {
  return { email: member.email, role: member.role, joined_at: member.joinedAt };
}
