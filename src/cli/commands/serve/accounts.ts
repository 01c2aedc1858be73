// `exectl serve accounts add|list|remove` (SPEC §7): manage the accounts of a data folder
// offline, straight through the store; refused while a server runs on the folder.
import { join } from 'node:path';
import { ExectlError } from '../../../errors.js';
import {
  checkEmail,
  quote,
  ensureAccount,
  DATABASE_FILE,
  openStore,
  type Store,
} from '../../../service/index.js';
import { listCell, textTable } from '../../../text-views/table.js';
import { terminalColumns } from '../../terminal-width.js';
import type { CliContext } from '../../context.js';
import { existingDataFolder, keptDataFolder, prepareDataFolder, withLockedFolder } from './data.js';
import type { DataFolder } from './options.js';
import { readKeyFiles } from './owner.js';

/** How a refusal of --ephemeral starts. */
const ACCOUNTS = 'accounts commands work';

/** `accounts list --json`: one entry per account, oldest first. */
interface AccountListEntry {
  email: string;
  user_id: string;
  created_at: string;
  ssh_keys: { name: string; fingerprint: string }[];
}

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
  usageEmail(email);
  const keys = keyFiles.length === 0 ? [] : await readKeyFiles(keyFiles, '--key');
  const folder = await prepareDataFolder(keptDataFolder(data, ACCOUNTS));
  const { account, created, added } = withStore(folder.path, (store) =>
    ensureAccount(
      store,
      email,
      keys.map((key) => ({ key })),
    ),
  );
  const keyList = added.map((k) => `${k.fingerprint} (${k.name})`).join(', ');
  const what = created
    ? `created account ${account.email} (${account.userId})`
    : `account ${account.email} exists`;
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
  const entries = withStore(existingDataFolder(data, ACCOUNTS), (store) =>
    store.listAccounts().map((account): AccountListEntry => ({
      email: account.email,
      user_id: account.userId,
      created_at: account.createdAt,
      ssh_keys: store
        .listKeys(account.id)
        .map((k) => ({ name: k.name, fingerprint: k.fingerprint })),
    })),
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

/**
 * Removes the account `email` with its keys, integrations and team. Refused while it owns VMs:
 * their disks and processes belong to a running server, which removes them with `rm`.
 */
export async function runAccountsRemove(
  ctx: CliContext,
  email: string,
  data: DataFolder,
): Promise<void> {
  usageEmail(email);
  const removed = withStore(existingDataFolder(data, ACCOUNTS), (store) => {
    const account = store.findAccountByEmail(email);
    if (account === undefined) {
      throw new ExectlError('command_failed', `no account for ${quote(email)}`, {
        hint: 'see `exectl serve accounts list`',
      });
    }
    const vms = store.listVmsOwnedBy(account.id);
    if (vms.length > 0) {
      throw new ExectlError(
        'command_failed',
        `${account.email} still owns ${vms.length} VM(s): ${vms.map((v) => v.name).join(', ')}`,
        {
          hint: `remove them first, with the server running: exectl run rm ${vms.map((v) => v.name).join(' ')}`,
        },
      );
    }
    return store.removeAccount(account.id).account;
  });
  ctx.stdout.write(`removed account ${removed.email} (${removed.userId})\n`);
}

/**
 * Runs `work` on the data folder's store, holding the folder's lock (refused while a server
 * runs on it) and closing both whatever happens.
 */
function withStore<T>(dataDir: string, work: (store: Store) => T): T {
  return withLockedFolder(dataDir, () => {
    const store = openStore(join(dataDir, DATABASE_FILE));
    try {
      return work(store);
    } finally {
      store.close();
    }
  });
}

function usageEmail(email: string): void {
  try {
    checkEmail(email);
  } catch (err) {
    throw new ExectlError('usage', (err as Error).message, { hint: 'e.g. ada@example.com' });
  }
}
