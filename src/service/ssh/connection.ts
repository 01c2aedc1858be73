import { performance } from 'node:perf_hooks';
import type { AuthContext, Connection } from 'ssh2';
import { fingerprintOf } from '../../token/keys.js';
import { logRequest, newRequestId } from '../request-log.js';
import { judgePublicKeyAttempt } from './authenticate.js';
import type { ConnectionWire } from './channel-guard.js';
import { sshPrincipal } from './principal.js';
import type { SshCommandEnvironment } from './lobby/run-line.js';
import { serveSessions } from './lobby/session.js';
import { serveVmSessions, VM_USER_PREFIX } from './vm-sessions/vm-session.js';
import { vmAtAddress, vmByName } from './vm-sessions/vm-target.js';

/** Attempts (queries and signatures) one connection may make before it is cut off. */
const MAX_AUTH_ATTEMPTS = 10;

/** What the front end hands every connection. */
interface ConnectionContext {
  env: SshCommandEnvironment;
  shutdown: AbortSignal;
  track(work: Promise<unknown>): void;
  /** Tells the listener the connection signed in (its login grace and caps, connection-limits). */
  signedIn(): void;
  wire: ConnectionWire;
  /** The VM whose own address the client connected to, if it did (SPEC §6a). */
  addressed?: AddressedVm;
}

/** A VM's own SSH address (rules/vm-ssh-address.ts), as a connection arrived at it. */
export interface AddressedVm {
  vmId: number;
  /** The socket's local address, e.g. `127.77.0.1`. */
  address: string;
}

/**
 * Serves one client connection: authentication by registered public key only (every other
 * method, password and keyboard-interactive included, is refused and never offered: the only
 * method the server lists is `publickey`), then its sessions as the key's account. The key
 * alone says who the caller is; the address and the SSH user name say where to: at a VM's own
 * address any user name is that VM, elsewhere `vm+<name>` is the VM (SPEC §6a,
 * vm-session.ts) and any other name the lobby. A connection that never
 * authenticates is logged once, as a 401 with the last key it offered.
 */
export function serveConnection(client: Connection, ctx: ConnectionContext): void {
  const started = performance.now();
  const store = ctx.env.deps.store;
  let attempts = 0;
  let offered = '-';
  let authenticated: string | undefined;
  let user = '';

  client.on('authentication', (auth: AuthContext) => {
    if (auth.method !== 'publickey') return auth.reject(['publickey']);
    attempts += 1;
    if (attempts > MAX_AUTH_ATTEMPTS) {
      auth.reject([]);
      client.end();
      return;
    }
    offered = fingerprintOf(auth.key.data);
    const verdict = judgePublicKeyAttempt(store, {
      algorithm: auth.key.algo,
      keyBlob: auth.key.data,
      hashAlgorithm: auth.hashAlgo,
      ...(auth.signature !== undefined && auth.blob !== undefined
        ? { proof: { signedData: auth.blob, signature: auth.signature } }
        : {}),
    });
    if (verdict === 'reject') return auth.reject(['publickey']);
    if (auth.signature !== undefined) {
      authenticated = offered;
      user = auth.username;
    }
    auth.accept();
  });

  client.on('ready', () => {
    ctx.signedIn();
    const fingerprint = authenticated!;
    let email: string;
    try {
      email = sshPrincipal(store, fingerprint).email;
    } catch {
      // The key was removed between its signature and now.
      client.end();
      return;
    }
    const session = { ...ctx, fingerprint, email };
    if (ctx.addressed !== undefined) {
      serveVmSessions(client, session, vmAtAddress(ctx.addressed.vmId, ctx.addressed.address));
    } else if (user.startsWith(VM_USER_PREFIX)) {
      serveVmSessions(client, session, vmByName(user.slice(VM_USER_PREFIX.length)));
    } else serveSessions(client, session);
  });

  // A reset or garbled connection only concerns that client; there is nobody to tell.
  client.on('error', () => {});

  client.on('close', () => {
    if (authenticated !== undefined || attempts === 0) return;
    logRequest(ctx.env.log, {
      requestId: newRequestId(),
      via: 'ssh',
      fingerprint: offered,
      path: '-',
      status: 401,
      durationMs: performance.now() - started,
    });
  });
}
