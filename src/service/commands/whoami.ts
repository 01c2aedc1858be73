import { json, type ServiceCommand } from './shared/command.js';
import { visibleKeys } from './ssh-key/keys.js';
import { regionDisplay } from '../rules/regions.js';
import type { RegionData } from '../../text-views/account.js';

interface WhoamiData extends RegionData {
  email: string;
  user_id: string;
  ssh_keys: { name: string; fingerprint: string; public_key: string; current: boolean }[];
}

/**
 * `whoami` — the caller's account and its keys (a tag-scoped key sees only itself); `current`
 * marks the key of this request.
 */
export const whoamiCommand: ServiceCommand = {
  path: 'whoami',
  description:
    'Show your account: email, user id, region and SSH keys (current: the key of this request)',
  usage: 'whoami',
  flags: [],
  args: [],
  examples: ['whoami'],
  mutates: false,
  async run(ctx) {
    const { principal } = ctx;
    const region = ctx.deps.store.getAccount(principal.accountId)?.region ?? 'local';
    const data: WhoamiData = {
      email: principal.email,
      user_id: principal.userId,
      region,
      region_display: regionDisplay(region),
      ssh_keys: visibleKeys(ctx).map((key) => ({
        name: key.name,
        fingerprint: key.fingerprint,
        public_key: key.publicKey,
        current: key.fingerprint === principal.keyFingerprint,
      })),
    };
    return json(data);
  },
};
