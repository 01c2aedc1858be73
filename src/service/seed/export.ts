// `exectl serve export` (SPEC §7): a data folder's whole state written in the `--seed` format,
// so that importing it (or starting with it as `--seed`) into an empty folder gives the same
// accounts, keys, VMs, shares, teams and integrations. What the format cannot carry — VM
// disks, ids, times, svc1 handles — stays behind (exectl-serve(1), EXPORT AND IMPORT).
import { DEFAULT_VM_LIMITS, type Account, type Store, type VmRecord } from '../store/index.js';
import type { IntegrationRecord } from '../store/index.js';
import { limitsJson } from './limits.js';

import type { ExportOptions, SeedDocument } from './document.js';

/**
 * The state of `store` as a seed. Without `withSecrets`, integrations carry no `headers`, only
 * their names (`headers_without_values`): importing such a file gives integrations that
 * forward without them, and says so for each.
 */
export function exportSeed(store: Store, options: ExportOptions): SeedDocument {
  return { accounts: store.listAccounts().map((a) => exportAccount(store, a, options)) };
}

function exportAccount(
  store: Store,
  account: Account,
  options: ExportOptions,
): Record<string, unknown> {
  const keys = store.listKeys(account.id).map((k) => ({
    key: k.publicKey,
    name: k.name,
    ...(k.tag === null ? {} : { tag: k.tag }),
  }));
  const integrations = store.listIntegrations(account.id).map((i) => exportIntegration(i, options));
  const vms = store.listVmsOwnedBy(account.id).map((vm) => exportVm(store, vm));
  const team = store.getTeamOfAccount(account.id);
  const members =
    team?.role === 'owner'
      ? store
          .listTeamMembers(team.team.id)
          .filter((m) => m.role === 'member')
          .map((m) => m.email)
      : [];
  return {
    email: account.email,
    keys,
    integrations,
    vms,
    ...(members.length === 0 ? {} : { team_members: members }),
  };
}

function exportIntegration(
  integration: IntegrationRecord,
  { withSecrets }: ExportOptions,
): Record<string, unknown> {
  const { name, type, target, comment, headers, attachments, reflectionFields } = integration;
  return {
    name,
    type,
    ...(target === null ? {} : { target }),
    ...(headers.length === 0
      ? {}
      : withSecrets
        ? { headers }
        : { headers_without_values: headers.map((line) => line.slice(0, line.indexOf(':'))) }),
    comment,
    attach: attachments,
    ...(type === 'reflection' ? { fields: reflectionFields } : {}),
  };
}

function exportVm(store: Store, vm: VmRecord): Record<string, unknown> {
  const limits = limitsJson(vm.limits, DEFAULT_VM_LIMITS);
  const shares = store.listShares(vm.id).map((s) => s.email);
  return {
    name: vm.name,
    tags: vm.tags,
    comment: vm.comment,
    default_port: vm.defaultPort,
    visibility: vm.visibility,
    env: vm.env,
    ...(vm.setupScript === null ? {} : { setup_script: vm.setupScript }),
    ...(limits === undefined ? {} : { limits }),
    ...(shares.length === 0 ? {} : { shares }),
  };
}
