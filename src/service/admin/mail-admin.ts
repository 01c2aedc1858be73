// The operation of `exectl serve mail` (SPEC §4b): the emulator's outbox, the mail VMs sent
// their owners through the email gateway. The same code offline and on the admin socket.
import type { Store } from '../store/index.js';

/** One message of `serve mail`. */
export interface OutboxSummary {
  to: string;
  from_vm: string;
  subject: string;
  body: string;
  sent_at: string;
}

/** Every message kept in the outbox, oldest first. */
export function listOutboxSummaries(store: Store): OutboxSummary[] {
  return store.listOutbox().map((message) => ({
    to: message.to,
    from_vm: message.vmName,
    subject: message.subject,
    body: message.body,
    sent_at: message.sentAt,
  }));
}
