// `exectl serve accounts add|list|remove` (SPEC §7): manage the accounts of a data folder,
// through the admin socket of the server running on it, or offline straight through the store
// when none runs. Both ways run the same operations (service/admin); this file words them.
import { join } from 'node:path';
import {
  addAccount,
  checkAccountEmail,
  DATABASE_FILE,
  listAccountSummaries,
  openStore,
  removeAccountByEmail,
  type AccountSummary,
  type AddedAccount,
  type AdminRequest,
  type RemovedAccountSummary,
  type Store,
} from '../../../service/index.js';
import { listCell, textTable } from '../../../text-views/table.js';
import { terminalColumns } from '../../terminal-width.js';
import type { CliContext } from '../../context.js';
import { askServer, NO_SERVER } from './admin-client.js';
import { existingDataFolder, keptDataFolder, prepareDataFolder, withLockedFolder } from './data.js';
import type { DataFolder } from './options.js';
import { readKeyFiles } from './owner.js';

/** How a refusal of --ephemeral starts. */
const ACCOUNTS = 'accounts commands work';

/**
 * Makes the account `email` exist in the data folder (created if missing, with its parents)
 * and hold the keys of the `--key` files.
 */
export async function runAccountsAdd(
  ctx: CliContext,
  email: string,
  keyFiles: readonly string[],
  data: DataFolder,
): Promise<void> {
  checkAccountEmail(email);
  const keys = keyFiles.length === 0 ? [] : await readKeyFiles(keyFiles, '--key');
  const folder = await prepareDataFolder(keptDataFolder(data, ACCOUNTS));
  const request: AdminRequest = { op: 'add', email, keys: keys.map((k) => k.toOpenSsh()) };
  const {
    email: shown,
    user_id,
    created,
    added,
  } = await onFolder(folder.path, request, (store) => addAccount(store, email, keys));
  const keyList = added.map((k) => `${k.fingerprint} (${k.name})`).join(', ');
  const what = created ? `created account ${shown} (${user_id})` : `account ${shown} exists`;
  const keysPart =
    added.length === 0 ? (created ? ', no ssh key' : ', keys unchanged') : `, added ${keyList}`;
  ctx.stdout.write(`${what}${keysPart}\n`);
}

/** Lists the accounts: a table on a terminal, tab-separated lines in a pipe, or JSON. */
export async function runAccountsList(
  ctx: CliContext,
  json: boolean,
  data: DataFolder,
): Promise<void> {
  const entries = await onFolder(existingDataFolder(data, ACCOUNTS), { op: 'list' }, (store) =>
    listAccountSummaries(store),
  );
  if (json) {
    ctx.stdout.write(`${JSON.stringify({ accounts: entries }, null, 2)}\n`);
  } else if (ctx.stdout.isTTY === true) {
    const rows = entries.map((e) => [
      e.email,
      e.user_id,
      listCell(e.ssh_keys.map((k) => k.name)),
      e.created_at,
    ]);
    const headers = ['email', 'user id', 'ssh keys', 'created'];
    ctx.stdout.write(textTable(headers, rows, 'no accounts', terminalColumns(ctx.stdout)));
  } else {
    for (const e of entries) {
      ctx.stdout.write(`${[e.email, e.user_id, e.ssh_keys.length, e.created_at].join('\t')}\n`);
    }
  }
}

/** Removes the account `email` with its keys, integrations and team (not while it owns VMs). */
export async function runAccountsRemove(
  ctx: CliContext,
  email: string,
  data: DataFolder,
): Promise<void> {
  checkAccountEmail(email);
  const removed = await onFolder(
    existingDataFolder(data, ACCOUNTS),
    { op: 'remove', email },
    (store) => removeAccountByEmail(store, email),
  );
  ctx.stdout.write(`removed account ${removed.email} (${removed.user_id})\n`);
}

/** What each request answers: the result of its operation. */
interface Results {
  add: AddedAccount;
  list: AccountSummary[];
  remove: RemovedAccountSummary;
}

/**
 * The result of `request`: from the server running on `dataDir` when one answers on its admin
 * socket, else of `offline` on the folder's store, holding the folder's lock (which still
 * refuses when a server runs but does not answer, e.g. while it starts).
 */
async function onFolder<R extends Exclude<AdminRequest, { op: 'mail' }>>(
  dataDir: string,
  request: R,
  offline: (store: Store) => Results[R['op']],
): Promise<Results[R['op']]> {
  const answer = await askServer(dataDir, request);
  if (answer !== NO_SERVER) return answer as Results[R['op']];
  return withLockedFolder(dataDir, () => {
    const store = openStore(join(dataDir, DATABASE_FILE));
    try {
      return offline(store);
    } finally {
      store.close();
    }
  });
}
