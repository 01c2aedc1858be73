// An admin request run against the server's store: the operations of accounts-admin.ts and
// mail-admin.ts, the same the CLI runs offline. Keys arrive as OpenSSH lines and pass the same parser as a file's.
import { ExectlError } from '../../errors.js';
import { parseKeyLines } from '../accounts.js';
import type { Store } from '../store/index.js';
import { addAccount, listAccountSummaries, removeAccountByEmail } from './accounts-admin.js';
import { listOutboxSummaries } from './mail-admin.js';
import type { AdminRequest } from './protocol.js';

/** The result of `request`, or the operation's error. */
export function runAdminRequest(store: Store, request: AdminRequest): unknown {
  switch (request.op) {
    case 'list':
      return listAccountSummaries(store);
    case 'mail':
      return listOutboxSummaries(store);
    case 'remove':
      return removeAccountByEmail(store, request.email);
    case 'add': {
      const lines = request.keys.map((line, index) => ({ line, source: `key ${index + 1}` }));
      const { keys, rejected } = parseKeyLines(lines);
      const bad = rejected[0];
      if (bad !== undefined) {
        throw new ExectlError('usage', `${bad.source}: ${bad.reason}`, {
          hint: 'give OpenSSH public keys',
        });
      }
      return addAccount(store, request.email, keys);
    }
  }
}
