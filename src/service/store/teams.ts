import { StoreConflictError } from './conflicts.js';
import { writeTransaction, type StoreContext } from './context.js';
import { reflectionSecretRotation } from './reflection-secrets.js';
import { teamInvitationStore, type TeamInvitationStore } from './team-invitations.js';

export type TeamRole = 'owner' | 'member';

/** Every account owns one team, named `<local part of its email>'s team`. */
export interface TeamRecord {
  id: number;
  name: string;
  ownerAccountId: number;
  ownerEmail: string;
  createdAt: string;
}

export interface TeamMember {
  accountId: number;
  email: string;
  role: TeamRole;
  joinedAt: string;
}

/** The team an account is in now, and its role there. */
export interface AccountTeam {
  team: TeamRecord;
  role: TeamRole;
}

/**
 * Membership model: an account is in exactly one team at a time. It starts in its own team
 * (role `owner`); joining another team moves it there (role `member`) and leaving moves it
 * back. Its own team keeps existing meanwhile, with it as owner but not as member.
 */
export interface TeamStore extends TeamInvitationStore {
  /** The account's current team and role; undefined when the account does not exist. */
  getTeamOfAccount(accountId: number): AccountTeam | undefined;
  /** The owner first (when in the team), then members by joining time. */
  listTeamMembers(teamId: number): TeamMember[];
  /**
   * Moves the account out of its own team into `teamId` as a member at once (the seed's way:
   * the operator decides; commands invite instead); returns the team's members. Refused (StoreConflictError) when the account is already in that team
   * (`duplicate`), in some other team (`team_membership`), or owns a team that still has
   * other members (`team_has_members`).
   */
  addTeamMember(teamId: number, accountId: number): TeamMember[];
  /**
   * Moves a member of `teamId` back to its own team; returns the team's remaining members.
   * Every VM of the accounts that stay gets a new reflection secret (who may reach them
   * changed); the member's own VMs, keys and secrets are left as they are.
   * Refused when the account is not in that team (`not_found`) or owns it (`team_membership`).
   */
  removeTeamMember(teamId: number, accountId: number): TeamMember[];
}

interface TeamRow {
  id: number;
  name: string;
  owner_account_id: number;
  owner_email: string;
  created_at: string;
}

interface MemberRow {
  account_id: number;
  email: string;
  role: TeamRole;
  joined_at: string;
}

const TEAM_COLUMNS = `t.id, t.name, t.owner_account_id, o.email AS owner_email, t.created_at`;

const toTeam = (row: TeamRow): TeamRecord => ({
  id: row.id,
  name: row.name,
  ownerAccountId: row.owner_account_id,
  ownerEmail: row.owner_email,
  createdAt: row.created_at,
});

export function teamStore(ctx: StoreContext): TeamStore {
  const { db } = ctx;
  const teamById = db.prepare<[number], TeamRow>(
    `SELECT ${TEAM_COLUMNS} FROM teams t JOIN accounts o ON o.id = t.owner_account_id WHERE t.id = ?`,
  );
  const teamOfAccount = db.prepare<[number], TeamRow & { role: TeamRole }>(
    `SELECT ${TEAM_COLUMNS}, m.role FROM team_members m
       JOIN teams t ON t.id = m.team_id JOIN accounts o ON o.id = t.owner_account_id
     WHERE m.account_id = ?`,
  );
  const ownTeamId = db.prepare<[number], { id: number }>(
    'SELECT id FROM teams WHERE owner_account_id = ?',
  );
  const emailOf = db.prepare<[number], { email: string }>(
    'SELECT email FROM accounts WHERE id = ?',
  );
  const members = db.prepare<[number], MemberRow>(
    `SELECT m.account_id, a.email, m.role, m.joined_at
     FROM team_members m JOIN accounts a ON a.id = m.account_id
     WHERE m.team_id = ? ORDER BY m.role = 'owner' DESC, m.joined_at, a.email`,
  );
  const otherMembers = db.prepare<[number, number], { n: number }>(
    'SELECT count(*) AS n FROM team_members WHERE team_id = ? AND account_id <> ?',
  );
  const rotate = reflectionSecretRotation(ctx);
  const move = db.prepare<[number, TeamRole, string, number]>(
    'UPDATE team_members SET team_id = ?, role = ?, joined_at = ? WHERE account_id = ?',
  );
  const lapseInvitationsOf = db.prepare<[number]>(
    'DELETE FROM team_invitations WHERE team_id = (SELECT id FROM teams WHERE owner_account_id = ?)',
  );

  const requireTeam = (teamId: number): TeamRecord => {
    const row = teamById.get(teamId);
    if (row === undefined) throw new StoreConflictError('not_found', 'team no longer exists');
    return toTeam(row);
  };

  /** The account's email and current team, or a not_found conflict. */
  const requireMembership = (accountId: number) => {
    const email = emailOf.get(accountId)?.email;
    const current = teamOfAccount.get(accountId);
    if (email === undefined || current === undefined) {
      throw new StoreConflictError('not_found', 'account no longer exists');
    }
    return { email, current };
  };

  /** The conflicts of `addTeamMember`, checked inside the caller's transaction. */
  const requireCanJoin = (teamId: number, accountId: number): void => {
    const team = requireTeam(teamId);
    const { email, current } = requireMembership(accountId);
    if (current.id === teamId) {
      throw new StoreConflictError(
        'duplicate',
        `${email} is already a member of team "${team.name}"`,
      );
    }
    if (current.owner_account_id !== accountId) {
      throw new StoreConflictError(
        'team_membership',
        `${email} is already a member of another team`,
      );
    }
    if (otherMembers.get(current.id, accountId)!.n > 0) {
      throw new StoreConflictError('team_has_members', `${email} owns a team with other members`);
    }
  };

  const join = (teamId: number, accountId: number): void => {
    lapseInvitationsOf.run(accountId);
    move.run(teamId, 'member', ctx.timestamp(), accountId);
  };

  const listTeamMembers = (teamId: number): TeamMember[] =>
    members.all(teamId).map((row) => ({
      accountId: row.account_id,
      email: row.email,
      role: row.role,
      joinedAt: row.joined_at,
    }));

  return {
    ...teamInvitationStore(ctx, { requireCanJoin, join }),

    getTeamOfAccount(accountId) {
      const row = teamOfAccount.get(accountId);
      return row === undefined ? undefined : { team: toTeam(row), role: row.role };
    },

    listTeamMembers,

    addTeamMember: writeTransaction(ctx, (teamId: number, accountId: number) => {
      requireCanJoin(teamId, accountId);
      join(teamId, accountId);
      return listTeamMembers(teamId);
    }),

    removeTeamMember: writeTransaction(ctx, (teamId: number, accountId: number) => {
      const team = requireTeam(teamId);
      const { email, current } = requireMembership(accountId);
      if (current.id !== teamId) {
        throw new StoreConflictError(
          'not_found',
          `${email} is not a member of team "${team.name}"`,
        );
      }
      if (team.ownerAccountId === accountId) {
        throw new StoreConflictError(
          'team_membership',
          `${email} owns team "${team.name}" and cannot leave it`,
        );
      }
      // Every VM of those who stay gets a new secret: who is in their team changed. The
      // member's own VMs, keys and secrets stay as they are: removing someone from a team must
      // never break what they run (SPEC §3).
      const staying = listTeamMembers(teamId).filter((m) => m.accountId !== accountId);
      rotate.ofAccounts(staying.map((m) => m.accountId));
      move.run(ownTeamId.get(accountId)!.id, 'owner', ctx.timestamp(), accountId);
      return listTeamMembers(teamId);
    }),
  };
}
