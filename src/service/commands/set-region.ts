import { commandFailed } from '../../errors.js';
import { json, type ServiceCommand } from './shared/command.js';
import { findRegion, REGIONS } from '../rules/regions.js';
import { quote } from '../rules/validate.js';
import type { RegionData } from '../../text-views/account.js';

/**
 * `set-region <code>` — the region of the caller's next VMs, by the real service's codes (and
 * `local`). Recorded only: VMs made before keep theirs, and every VM runs here whatever it says.
 */
export const setRegionCommand: ServiceCommand = {
  path: 'set-region',
  description: 'Set the region of your next VMs (recorded only: every VM runs on this server)',
  usage: 'set-region <code>',
  flags: [],
  args: [{ name: 'code', required: true }],
  examples: ['set-region fra', 'set-region local'],
  mutates: true,
  async run(ctx, input) {
    const code = input.args[0] ?? '';
    const region = findRegion(code);
    if (region === undefined) {
      throw commandFailed(
        `region ${quote(code)} is not available; choose from: ${REGIONS.map((r) => r.code).join(', ')}`,
      );
    }
    ctx.deps.store.setRegion(ctx.principal.accountId, region.code);
    const data: RegionData = { region: region.code, region_display: region.display };
    return json(data);
  },
};
