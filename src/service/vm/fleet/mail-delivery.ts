// Mail into a VM (SPEC §4b, contract.ts `VmMachines.deliverMail`): the message is handed on
// stdin to scripts/maildir-deliver.sh, which runs inside the VM as its root and writes the
// VM's own Maildir. The host never writes a path of the VM's: /root is the tenant's, and a host
// process writing there would follow whatever symbolic links the tenant planted.
import { PassThrough, Readable } from 'node:stream';
import type { VmSession, VmSessionOptions } from '../contract.js';
import { scriptText } from '../scripts/index.js';

/** How long one delivery may take inside the VM (its boot included) on a busy host. */
const DELIVERY_TIMEOUT_MS = 30_000;

/** The most output the delivery script gives (one number); more is not read. */
const MAX_ANSWER_BYTES = 64;

/**
 * Delivers `message` by a session that `open` starts in the VM; resolves with how many files
 * wait in the VM's `new/` folder afterwards. Rejects when the session cannot start (a paused
 * VM), fails (no /bin/sh in the VM's image, a full disk) or takes longer than 30 s.
 */
export async function deliverIntoMaildir(
  open: (options: VmSessionOptions) => VmSession,
  message: Buffer,
): Promise<number> {
  const output = new PassThrough();
  let answer = '';
  output.on('data', (chunk: Buffer) => {
    if (answer.length < MAX_ANSWER_BYTES) answer += chunk.toString('latin1');
  });
  const errors = new PassThrough();
  errors.resume();
  const input = Readable.from([Buffer.from(`${message.length}\n`), message]);
  const session = open({
    program: { kind: 'exec', command: scriptText('maildir-deliver.sh') },
    signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    input,
    output,
    errors,
  });
  const { exitCode, aborted } = await session.exited;
  if (aborted) throw new Error('the delivery inside the VM took too long');
  if (exitCode !== 0) throw new Error(`the delivery inside the VM failed (exit ${exitCode})`);
  const waiting = Number(answer.trim());
  if (!Number.isSafeInteger(waiting)) throw new Error('the delivery inside the VM said nothing');
  return waiting;
}
