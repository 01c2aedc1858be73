import { ExectlError } from '../../errors.js';
import type { Principal } from '../dispatch/types.js';
import type { Store } from '../store/index.js';

/**
 * The caller behind an authenticated SSH key, looked up again for every command: a key
 * removed during a session (`ssh-key remove` in the REPL, or by another session) stops working
 * at the next command, as a removed key stops its tokens. SSH callers
 * hold no token, so their commands are not limited by any `cmds` list.
 */
export function sshPrincipal(
  store: Pick<Store, 'findKeyByFingerprint' | 'getAccount'>,
  fingerprint: string,
): Principal {
  const key = store.findKeyByFingerprint(fingerprint);
  const account = key === undefined ? undefined : store.getAccount(key.accountId);
  if (key === undefined || account === undefined) {
    throw new ExectlError('unauthorized', 'this SSH key is no longer registered', {
      hint: 'reconnect with a registered key',
    });
  }
  return {
    accountId: account.id,
    email: account.email,
    userId: account.userId,
    keyFingerprint: fingerprint,
    cmds: null,
    tag: key.tag,
    exp: null,
    via: 'ssh',
  };
}
