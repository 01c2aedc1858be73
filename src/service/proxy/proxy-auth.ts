// Who may reach a VM's server through the proxy (SPEC §6): the owner and the users the VM is
// shared with, each with a VM token of their own key; anyone at all for a public VM. A
// tag-scoped key enters only VMs carrying its tag (SPEC §3), as for the commands.
import { ExectlError } from '../../errors.js';
import { TokenError } from '../../token/errors.js';
import { sameEmail } from '../rules/validate.js';
import { isInTagScope } from '../rules/tag-scope.js';
import type { Principal } from '../dispatch/types.js';
import type { Store, VmRecord } from '../store/index.js';
import { takeOrRefuse, type RateLimiter } from '../rules/rate-limit.js';
import type { AdmissionMemo } from './admission-memo.js';
import type { ClientConnection } from '../http/failures-by-address.js';
import type { TokenAuthenticator, TokenCaller } from '../http/token-auth.js';
import type { WaitingConnection } from '../http/verification-turns.js';

/** What the proxy checks a request with; wired by the composition root. */
export interface ProxyGate {
  store: Store;
  auth: TokenAuthenticator;
  /** The same per-key buckets as /exec; null when rate limiting is off. */
  rateLimiter: RateLimiter | null;
  /** The server's `--vm-domain` (else `--domain`): VM tokens are signed for `v0@<vm>.<vm-domain>`. */
  vmDomain: string;
  /** The last admissions with a valid token, while the store is unchanged. */
  memo: AdmissionMemo;
}

/** A request let through to a VM. */
interface VmAdmission {
  vm: VmRecord;
  /** The caller whose token passed; null on a public VM reached without a valid token. */
  visitor: TokenCaller | null;
}

/**
 * Decides whether a request offering `token` may reach the VM called `label`.
 *
 * A missing VM is treated exactly as a private one the caller may not enter, and the same work
 * is done for both (the token is verified before anyone looks at the VM's owner or shares), so
 * neither the answer nor its cost tells whether the VM exists. A public VM lets everyone in and
 * names the visitor when a valid token for it came along.
 *
 * @throws (or rejects with) ExectlError 401 (with a `WWW-Authenticate` challenge for Bearer and Basic) when the
 *   token is missing or fails SPEC §1.5 for the VM's namespace, or its signer may not enter;
 *   429 when the signer's key has used up its bucket, or `connection`'s address its failed
 *   verifications (see TokenAuthenticator.authenticate, whose turn it waits for).
 */
export function admitToVm(
  gate: ProxyGate,
  label: string,
  token: string | null,
  connection: ClientConnection & WaitingConnection,
): VmAdmission | Promise<VmAdmission> {
  if (token !== null) {
    const remembered = gate.memo.get(label, token, gate.store.dataGeneration());
    if (remembered !== undefined && gate.auth.reconfirm(remembered.visitor, connection)) {
      takeOrRefuse(gate.rateLimiter, remembered.visitor.principal.keyFingerprint);
      return remembered;
    }
  }
  const turn =
    token === null ? null : gate.auth.turnToVerify(token, vmNamespace(gate, label), connection);
  // Without a turn to wait for (the usual case) the answer comes without a promise: this runs
  // on every proxied request.
  if (turn === null) return admitNow(gate, label, token, connection);
  return turn.then(() => admitNow(gate, label, token, connection));
}

function admitNow(
  gate: ProxyGate,
  label: string,
  token: string | null,
  connection: ClientConnection,
): VmAdmission {
  // Read before the lookups: an admission is never filed under a newer state than its reads.
  const generation = gate.store.dataGeneration();
  const admission = decide(gate, label, token, connection);
  if (token !== null && admission.visitor !== null) {
    gate.memo.set(label, token, generation, { vm: admission.vm, visitor: admission.visitor });
  }
  return admission;
}

function decide(
  gate: ProxyGate,
  label: string,
  token: string | null,
  connection: ClientConnection,
): VmAdmission {
  const vm = gate.store.getVmByName(label);
  const isPublic = vm?.visibility === 'public';
  try {
    const visitor = verifiedVisitor(gate, label, token, isPublic, connection);
    if (vm !== undefined && isPublic) return { vm, visitor };
    if (visitor === null)
      throw new ExectlError('unauthorized', 'missing or invalid Authorization header');
    if (!mayEnter(gate.store, vm, visitor.principal)) {
      throw new TokenError(
        'rejected',
        undefined,
        `${visitor.principal.email} may not enter vm ${label}`,
      );
    }
    return { vm, visitor };
  } catch (err) {
    if (err instanceof ExectlError && err.code === 'unauthorized') {
      // Basic is offered too, so git asks for credentials and sends the token as the password.
      const realm = `${label}.${gate.vmDomain}`;
      err.headers['WWW-Authenticate'] = `Bearer realm="${realm}", Basic realm="${realm}"`;
    }
    throw err;
  }
}

/**
 * The caller behind `token` for the VM's namespace, after taking one request from its key's
 * bucket. On a public VM a token that fails is ignored (the visit is anonymous); elsewhere its
 * 401 stands.
 */
function verifiedVisitor(
  gate: ProxyGate,
  label: string,
  token: string | null,
  isPublic: boolean,
  connection: ClientConnection,
): TokenCaller | null {
  if (token === null) return null;
  let visitor: TokenCaller;
  try {
    visitor = gate.auth.authenticate(token, vmNamespace(gate, label), connection);
  } catch (err) {
    if (isPublic && err instanceof ExectlError && err.code === 'unauthorized') return null;
    throw err;
  }
  takeOrRefuse(gate.rateLimiter, visitor.principal.keyFingerprint);
  return visitor;
}

/** The namespace of the VM called `label`'s tokens (SPEC §1.2). */
function vmNamespace(gate: ProxyGate, label: string): string {
  return `v0@${label}.${gate.vmDomain}`;
}

/**
 * The owner, or a user the VM is shared with (by email, compared as `share add` does); either
 * only when the VM is in the tag scope of the visitor's key.
 */
function mayEnter(store: Store, vm: VmRecord | undefined, principal: Principal): vm is VmRecord {
  const inScope = vm !== undefined && isInTagScope(principal, vm);
  // The owner learns nothing from timing: they know their VM exists.
  if (inScope && vm.accountId === principal.accountId) return true;
  // For anyone else (and for the owner's key scoped to another tag) a missing VM costs the same
  // share lookup as a real one: timing must not tell them apart.
  const shares = store.listShares(vm?.id ?? -1);
  return inScope && shares.some((share) => sameEmail(share.email, principal.email));
}
