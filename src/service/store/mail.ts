// Email (SPEC §4b): which VMs receive mail, and the outbox of the mail VMs send their owners.
import type { StoreContext } from './context.js';
import { writeTransaction } from './context.js';

/** The most outbox messages kept per account: a VM sending more pushes out its account's oldest. */
export const OUTBOX_PER_ACCOUNT = 500;

/** One message a VM sent its owner through the email gateway. */
export interface OutboxMessage {
  id: number;
  accountId: number;
  /** The VM's name when it sent it. */
  vmName: string;
  /** The owner's address, as the VM gave it. */
  to: string;
  subject: string;
  body: string;
  sentAt: string;
}

/** What a VM sends. */
export interface NewOutboxMessage {
  accountId: number;
  vmName: string;
  to: string;
  subject: string;
  body: string;
}

export interface MailStore {
  /** True when the VM accepts mail on the SMTP listener (`share receive-email <vm> on`). */
  receivesEmail(vmId: number): boolean;
  /** Turns receiving on or off; a VM that is gone changes nothing. */
  setReceiveEmail(vmId: number, on: boolean): void;
  /** Keeps a message in the outbox, dropping the account's oldest past {@link OUTBOX_PER_ACCOUNT}. */
  addOutboxMessage(message: NewOutboxMessage): OutboxMessage;
  /** The outbox, oldest first: one account's, or every account's when `accountId` is undefined. */
  listOutbox(accountId?: number): OutboxMessage[];
}

interface OutboxRow {
  id: number;
  account_id: number;
  vm_name: string;
  recipient: string;
  subject: string;
  body: string;
  sent_at: string;
}

const OUTBOX_COLUMNS = 'id, account_id, vm_name, recipient, subject, body, sent_at';

/** The mail statements of the store. */
export function mailStore(ctx: StoreContext): MailStore {
  const { db } = ctx;
  const receiving = db.prepare<[number], { vm_id: number }>(
    'SELECT vm_id FROM vm_receive_email WHERE vm_id = ?',
  );
  const turnOn = db.prepare<[string, number]>(
    `INSERT INTO vm_receive_email (vm_id, enabled_at)
     SELECT id, ? FROM vms WHERE id = ? ON CONFLICT (vm_id) DO NOTHING`,
  );
  const turnOff = db.prepare<[number]>('DELETE FROM vm_receive_email WHERE vm_id = ?');
  const insert = db.prepare<[number, string, string, string, string, string], OutboxRow>(
    `INSERT INTO outbox (account_id, vm_name, recipient, subject, body, sent_at)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING ${OUTBOX_COLUMNS}`,
  );
  const trim = db.prepare<[number, number, number]>(
    `DELETE FROM outbox WHERE account_id = ? AND id NOT IN
       (SELECT id FROM outbox WHERE account_id = ? ORDER BY id DESC LIMIT ?)`,
  );
  const listOne = db.prepare<[number], OutboxRow>(
    `SELECT ${OUTBOX_COLUMNS} FROM outbox WHERE account_id = ? ORDER BY id`,
  );
  const listAll = db.prepare<[], OutboxRow>(`SELECT ${OUTBOX_COLUMNS} FROM outbox ORDER BY id`);

  return {
    receivesEmail: (vmId) => receiving.get(vmId) !== undefined,
    setReceiveEmail: writeTransaction(ctx, (vmId: number, on: boolean) => {
      if (on) turnOn.run(ctx.timestamp(), vmId);
      else turnOff.run(vmId);
    }),
    addOutboxMessage: writeTransaction(ctx, (message: NewOutboxMessage) => {
      const row = insert.get(
        message.accountId,
        message.vmName,
        message.to,
        message.subject,
        message.body,
        ctx.timestamp(),
      )!;
      trim.run(message.accountId, message.accountId, OUTBOX_PER_ACCOUNT);
      return toOutboxMessage(row);
    }),
    listOutbox: (accountId) =>
      (accountId === undefined ? listAll.all() : listOne.all(accountId)).map(toOutboxMessage),
  };
}

function toOutboxMessage(row: OutboxRow): OutboxMessage {
  return {
    id: row.id,
    accountId: row.account_id,
    vmName: row.vm_name,
    to: row.recipient,
    subject: row.subject,
    body: row.body,
    sentAt: row.sent_at,
  };
}
