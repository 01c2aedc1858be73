import Database from 'better-sqlite3';
import { ExectlError } from '../../errors.js';

/**
 * Why the store refused a change:
 * - `duplicate`: a uniqueness rule (VM name, key fingerprint, key name per account, ...);
 * - `not_found`: the row to change does not exist (any more);
 * - `team_has_members`: the account owns a team that still has other members;
 * - `team_membership`: the account is not where the team change expects it to be.
 */
export type StoreConflictKind = 'duplicate' | 'not_found' | 'team_has_members' | 'team_membership';

/**
 * A change the store refused for integrity reasons. It is a `command_failed` ExectlError (422)
 * whose message is one sentence a command can pass straight to the user, e.g.
 * `vm "web" already exists`; `kind` lets a caller branch without reading the message.
 */
export class StoreConflictError extends ExectlError {
  readonly kind: StoreConflictKind;

  constructor(kind: StoreConflictKind, message: string) {
    super('command_failed', message);
    this.name = 'StoreConflictError';
    this.kind = kind;
  }
}

/**
 * Runs `write` and turns a UNIQUE / PRIMARY KEY violation into a StoreConflictError. `messages`
 * maps SQLite's constraint description (the text after `UNIQUE constraint failed: `, e.g.
 * `vms.name` or `ssh_keys.account_id, ssh_keys.name`) to the sentence for the user. Letting
 * SQLite detect the duplicate keeps check and insert atomic; a violation not listed is a bug
 * and is rethrown unchanged.
 */
export function withUniqueMessages<T>(write: () => T, messages: Record<string, string>): T {
  try {
    return write();
  } catch (error) {
    if (
      error instanceof Database.SqliteError &&
      (error.code === 'SQLITE_CONSTRAINT_UNIQUE' || error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
    ) {
      const columns = error.message.replace(/^UNIQUE constraint failed: /, '');
      const message = messages[columns];
      if (message !== undefined) throw new StoreConflictError('duplicate', message);
    }
    throw error;
  }
}
