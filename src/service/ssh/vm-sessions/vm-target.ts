// Which VM an SSH connection to `vm+<name>` may use, by the same rule as `ssh <vm>` on /exec.
import { findSshableVm } from '../../commands/shared/vm-access.js';
import { takeOrRefuse } from '../../rules/rate-limit.js';
import type { VmRecord } from '../../store/index.js';
import { sshPrincipal } from '../principal.js';
import type { SessionContext } from '../session-context.js';

/**
 * The VM `name` for the connection's key, counted like a request: the key still registered
 * (401), its rate-limit bucket (429), then the rule of every ssh door (SPEC §3: own VMs, VMs
 * shared with the account, those whose owner let the team in, a tag-scoped key's tag only).
 *
 * @throws ExectlError 422 `vm "x" not found` alike for a VM that does not exist and one the
 *   key may not use, 401 or 429 as above.
 */
export function openVm(ctx: SessionContext, name: string): VmRecord {
  const { deps } = ctx.env;
  const principal = sshPrincipal(deps.store, ctx.fingerprint);
  deps.store.recordKeyUse(ctx.fingerprint);
  takeOrRefuse(ctx.env.rateLimiter, ctx.fingerprint);
  return findSshableVm({ deps, principal }, name);
}
