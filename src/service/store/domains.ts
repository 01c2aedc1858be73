// Custom domains of VMs (`domain add|rm|ls`, SPEC §3): the VM proxy routes a request whose
// Host is one of them (or, for a wildcard, any name under it) to that VM as if it named the VM.
import { StoreConflictError, withUniqueMessages } from './conflicts.js';
import { writeTransaction, type StoreContext } from './context.js';

/** One domain of a VM: `domain` is lower case, without the `*.` of a wildcard. */
export interface DomainRecord {
  domain: string;
  vmId: number;
  vmName: string;
  wildcard: boolean;
  addedAt: string;
}

export interface DomainStore {
  /**
   * Gives the VM `domain`. Conflict: `domain "a.example" is already in use: ...`, whichever
   * VM (of whichever account) holds it, so the words tell nobody whose it is.
   */
  addDomain(vmId: number, domain: string, wildcard: boolean): DomainRecord;
  /** Takes `domain` from the VM; false when the VM has no such domain. */
  removeDomain(vmId: number, domain: string): boolean;
  /** The VM's domains, by name. */
  listDomains(vmId: number): DomainRecord[];
  /** The domains of every VM the account owns, by VM name then domain. */
  listDomainsOfAccount(accountId: number): DomainRecord[];
  /**
   * Hot path (the VM proxy, every request whose Host is no `<vm>.<domain>`): the name of the VM
   * that `host` (lower case, no port) routes to: the domain itself, else the nearest wildcard
   * domain above it; undefined when none.
   */
  vmNameForDomain(host: string): string | undefined;
}

interface DomainRow {
  domain: string;
  vm_id: number;
  vm_name: string;
  wildcard: number;
  added_at: string;
}

const SELECT = `SELECT d.domain, d.vm_id, v.name AS vm_name, d.wildcard, d.added_at
  FROM vm_domains d JOIN vms v ON v.id = d.vm_id`;

const toRecord = (row: DomainRow): DomainRecord => ({
  domain: row.domain,
  vmId: row.vm_id,
  vmName: row.vm_name,
  wildcard: row.wildcard === 1,
  addedAt: row.added_at,
});

/** The custom domains table's reads and writes. */
export function domainStore(ctx: StoreContext): DomainStore {
  const { db } = ctx;
  const insert = db.prepare<[string, number, number, string]>(
    'INSERT INTO vm_domains (domain, vm_id, wildcard, added_at) VALUES (?, ?, ?, ?)',
  );
  const remove = db.prepare<[number, string]>(
    'DELETE FROM vm_domains WHERE vm_id = ? AND domain = ?',
  );
  const vmName = db.prepare<[number], { name: string }>('SELECT name FROM vms WHERE id = ?');
  const byVm = db.prepare<[number], DomainRow>(`${SELECT} WHERE d.vm_id = ? ORDER BY d.domain`);
  const byAccount = db.prepare<[number], DomainRow>(
    `${SELECT} WHERE v.account_id = ? ORDER BY v.name, d.domain`,
  );
  const byName = db.prepare<[string], DomainRow>(`${SELECT} WHERE d.domain = ?`);

  /** The row for `host` itself, else for the nearest wildcard above it. */
  const routeOf = (host: string): string | undefined => {
    const exact = byName.get(host);
    if (exact !== undefined) return exact.vm_name;
    const labels = host.split('.');
    for (let i = 1; i < labels.length - 1; i += 1) {
      const above = byName.get(labels.slice(i).join('.'));
      if (above?.wildcard === 1) return above.vm_name;
    }
    return undefined;
  };

  return {
    addDomain: writeTransaction(ctx, (vmId: number, domain: string, wildcard: boolean) => {
      const vm = vmName.get(vmId);
      if (vm === undefined) throw new StoreConflictError('not_found', 'vm no longer exists');
      const addedAt = ctx.timestamp();
      withUniqueMessages(() => insert.run(domain, vmId, wildcard ? 1 : 0, addedAt), {
        'vm_domains.domain': `domain "${domain}" is already in use: a domain routes to one vm only`,
      });
      return { domain, vmId, vmName: vm.name, wildcard, addedAt };
    }),
    removeDomain: writeTransaction(
      ctx,
      (vmId: number, domain: string) => remove.run(vmId, domain).changes > 0,
    ),
    listDomains: (vmId) => byVm.all(vmId).map(toRecord),
    listDomainsOfAccount: (accountId) => byAccount.all(accountId).map(toRecord),
    vmNameForDomain: (host) => ctx.reads.get(`dm:${host}`, () => routeOf(host)),
  };
}
