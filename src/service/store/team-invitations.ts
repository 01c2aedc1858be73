// Team invitations (SPEC §3): `team add` invites an account, and it joins only when it accepts.
// An invitation moves nothing; an account in another team with other members, or owning one,
// cannot be invited, and still cannot join when it accepts (it may have changed in between).
import type { Database } from 'better-sqlite3';
import { StoreConflictError } from './conflicts.js';
import { writeTransaction, type StoreContext } from './context.js';

/** An account invited to a team, as the team's owner sees it. */
export interface TeamInvitee {
  accountId: number;
  email: string;
  invitedAt: string;
}

/** An invitation an account holds, as the invited account sees it. */
export interface TeamInvitation {
  teamId: number;
  teamName: string;
  ownerEmail: string;
  invitedAt: string;
}

export interface TeamInvitationStore {
  /**
   * Invites the account into `teamId` (again: nothing changes). Refused (StoreConflictError)
   * when it is in that team already (`duplicate`), in some other team (`team_membership`), or
   * owns a team that still has other members (`team_has_members`).
   */
  inviteToTeam(teamId: number, accountId: number): void;
  /** The accounts invited to `teamId`, oldest invitation first. */
  listTeamInvitees(teamId: number): TeamInvitee[];
  /** The invitations the account holds, oldest first. */
  listInvitationsOf(accountId: number): TeamInvitation[];
  /**
   * The account takes the invitation of the team `ownerAccountId` owns and joins it (refused
   * as {@link inviteToTeam} is; `not_found` without such an invitation).
   */
  acceptTeamInvitation(accountId: number, ownerAccountId: number): void;
  /** Withdraws (owner) or declines (invitee) one invitation; false when there was none. */
  dropTeamInvitation(teamId: number, accountId: number): boolean;
}

/** What the invitation rules need of the team store: the one check and the one move. */
export interface TeamMoves {
  /** Throws the conflicts of {@link TeamInvitationStore.inviteToTeam} for a join now. */
  requireCanJoin(teamId: number, accountId: number): void;
  /**
   * Moves the account into `teamId` as a member (inside the caller's transaction); the
   * invitations of its own team lapse, since its owner is no longer there to lead it.
   */
  join(teamId: number, accountId: number): void;
}

export function teamInvitationStore(ctx: StoreContext, moves: TeamMoves): TeamInvitationStore {
  const { db } = ctx;
  const statements = invitationStatements(db);

  return {
    inviteToTeam: writeTransaction(ctx, (teamId: number, accountId: number) => {
      moves.requireCanJoin(teamId, accountId);
      statements.insert.run(teamId, accountId, ctx.timestamp());
    }),

    listTeamInvitees: (teamId) =>
      statements.invitees.all(teamId).map((row) => ({
        accountId: row.account_id,
        email: row.email,
        invitedAt: row.invited_at,
      })),

    listInvitationsOf: (accountId) =>
      statements.held.all(accountId).map((row) => ({
        teamId: row.team_id,
        teamName: row.team_name,
        ownerEmail: row.owner_email,
        invitedAt: row.invited_at,
      })),

    acceptTeamInvitation: writeTransaction(ctx, (accountId: number, ownerAccountId: number) => {
      const teamId = statements.invitationFrom.get(accountId, ownerAccountId)?.team_id;
      if (teamId === undefined) throw new StoreConflictError('not_found', 'no such invitation');
      moves.requireCanJoin(teamId, accountId);
      statements.remove.run(teamId, accountId);
      moves.join(teamId, accountId);
    }),

    dropTeamInvitation: writeTransaction(
      ctx,
      (teamId: number, accountId: number) => statements.remove.run(teamId, accountId).changes > 0,
    ),
  };
}

function invitationStatements(db: Database) {
  return {
    // OR IGNORE: a second invitation keeps the first one's time.
    insert: db.prepare<[number, number, string]>(
      'INSERT OR IGNORE INTO team_invitations (team_id, account_id, invited_at) VALUES (?, ?, ?)',
    ),
    remove: db.prepare<[number, number]>(
      'DELETE FROM team_invitations WHERE team_id = ? AND account_id = ?',
    ),
    invitees: db.prepare<[number], { account_id: number; email: string; invited_at: string }>(
      `SELECT i.account_id, a.email, i.invited_at
       FROM team_invitations i JOIN accounts a ON a.id = i.account_id
       WHERE i.team_id = ? ORDER BY i.invited_at, a.email`,
    ),
    held: db.prepare<
      [number],
      { team_id: number; team_name: string; owner_email: string; invited_at: string }
    >(
      `SELECT t.id AS team_id, t.name AS team_name, o.email AS owner_email, i.invited_at
       FROM team_invitations i JOIN teams t ON t.id = i.team_id
         JOIN accounts o ON o.id = t.owner_account_id
       WHERE i.account_id = ? ORDER BY i.invited_at, o.email`,
    ),
    invitationFrom: db.prepare<[number, number], { team_id: number }>(
      `SELECT i.team_id FROM team_invitations i JOIN teams t ON t.id = i.team_id
       WHERE i.account_id = ? AND t.owner_account_id = ?`,
    ),
  };
}
