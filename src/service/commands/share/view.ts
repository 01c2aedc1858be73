// The JSON shapes of a VM's sharing settings (SPEC §3 `share ...`).
import type { ServiceDeps } from '../../deps.js';
import type { Visibility, VmRecord } from '../../store/index.js';
import { httpsUrl } from '../vm-view.js';

export interface ShareUser {
  email: string;
  added_at: string;
}

export interface ShareLink {
  token: string;
  created_at: string;
  use_count: number;
  last_used_at: string | null;
}

export interface ShareEntry {
  vm_name: string;
  visibility: Visibility;
  port: number;
  url: string;
  users: ShareUser[];
  links: ShareLink[];
}

/** The emails a VM is shared with, oldest first. */
export function shareUsers(deps: ServiceDeps, vm: VmRecord): ShareUser[] {
  return deps.store
    .listShares(vm.id)
    .map((share) => ({ email: share.email, added_at: share.addedAt }));
}

/** One VM's sharing: who may use it, whether its address is public, and which port it shows. */
export function shareEntry(deps: ServiceDeps, vm: VmRecord): ShareEntry {
  return {
    vm_name: vm.name,
    visibility: vm.visibility,
    port: vm.defaultPort,
    url: httpsUrl(deps, vm.name),
    users: shareUsers(deps, vm),
    links: deps.store.listShareLinks(vm.id).map((link) => ({
      token: link.token,
      created_at: link.createdAt,
      use_count: link.useCount,
      last_used_at: link.lastUsedAt,
    })),
  };
}
