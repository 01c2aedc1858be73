// `exectl serve mail` (SPEC §4b): the emulator's outbox, the mail VMs sent their owners. Through
// the admin socket of the server running on the data folder, or offline when none runs.
import { join } from 'node:path';
import {
  DATABASE_FILE,
  listOutboxSummaries,
  openStore,
  type OutboxSummary,
} from '../../../service/index.js';
import type { CliContext } from '../../context.js';
import { askServer, NO_SERVER } from './admin-client.js';
import { existingDataFolder, withLockedFolder } from './data.js';
import type { DataFolder } from './options.js';

/** Prints the outbox: each message with its headers and body, or JSON. */
export async function runMail(ctx: CliContext, json: boolean, data: DataFolder): Promise<void> {
  const dataDir = existingDataFolder(data, 'serve mail works');
  const answer = await askServer(dataDir, { op: 'mail' });
  const messages =
    answer !== NO_SERVER
      ? (answer as OutboxSummary[])
      : withLockedFolder(dataDir, () => {
          const store = openStore(join(dataDir, DATABASE_FILE));
          try {
            return listOutboxSummaries(store);
          } finally {
            store.close();
          }
        });
  if (json) return void ctx.stdout.write(`${JSON.stringify({ messages }, null, 2)}\n`);
  if (messages.length === 0) return void ctx.stdout.write('no mail\n');
  ctx.stdout.write(
    messages
      .map(
        (m) =>
          `Date: ${m.sent_at}\nFrom: vm ${m.from_vm}\nTo: ${m.to}\nSubject: ${m.subject}\n\n${m.body}${m.body.endsWith('\n') ? '' : '\n'}`,
      )
      .join('\n'),
  );
}
