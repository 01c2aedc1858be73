// The tag scope of an API key (`ssh-key generate-api-key --tag T`, SPEC §3): shared by the
// commands (through commands/shared/vm-access.ts) and the VM proxy, so both apply one rule.
import type { Principal } from '../dispatch/types.js';
import type { VmRecord } from '../store/index.js';

/** True when the caller's key is not tag-scoped, or the VM carries the key's tag. */
export function isInTagScope(
  principal: Pick<Principal, 'tag'>,
  vm: Pick<VmRecord, 'tags'>,
): boolean {
  return principal.tag === null || vm.tags.includes(principal.tag);
}
