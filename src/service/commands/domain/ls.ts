import type { DomainRecord } from '../../store/index.js';
import { isInTagScope } from '../../rules/tag-scope.js';
import { json, type ServiceCommand } from '../shared/command.js';
import { findOwnVm } from '../shared/vm-access.js';

interface DomainEntry {
  vm_name: string;
  domain: string;
  wildcard: boolean;
  added_at: string;
}

const toEntry = (d: DomainRecord): DomainEntry => ({
  vm_name: d.vmName,
  domain: d.domain,
  wildcard: d.wildcard,
  added_at: d.addedAt,
});

/**
 * `domain ls [<vm>|-a]` — the custom domains of one of the caller's VMs, or (no VM, or `-a`)
 * of all of them; a tag-scoped key sees those of its tag's VMs only.
 */
export const domainLsCommand: ServiceCommand = {
  path: 'domain ls',
  description: 'List the domains routed to your VMs',
  usage: 'domain ls [<vm>|-a]',
  flags: [{ name: 'all', short: 'a', type: 'boolean', description: 'Every VM of yours' }],
  args: [{ name: 'vm', required: false }],
  examples: ['domain ls', 'domain ls web'],
  mutates: false,
  async run(ctx, input) {
    const { store } = ctx.deps;
    const name = input.args[0];
    let domains: DomainRecord[];
    if (name === undefined) {
      domains = store
        .listDomainsOfAccount(ctx.principal.accountId)
        .filter((d) => isInTagScope(ctx.principal, store.getVm(d.vmId)!));
    } else {
      domains = store.listDomains(findOwnVm(ctx, name, 'see its domains').id);
    }
    return json({ domains: domains.map(toEntry) });
  },
};
