import { commandFailed } from '../../../errors.js';
import { checkDefaultsDomain, defaultLimit } from '../../rules/defaults.js';
import { json, type ServiceCommand } from '../shared/command.js';

/** `{"defaults":{"dev.exe":{"new.setup-script":"..."}}}`: by domain, then key. */
interface DefaultsData {
  defaults: Record<string, Record<string, string>>;
}

/**
 * `defaults read [<domain> [<key>]]` — the caller's account's defaults: all of them, one
 * domain's, or one (422 when that one was never written).
 */
export const defaultsReadCommand: ServiceCommand = {
  path: 'defaults read',
  description: "Show your account's defaults (such as the setup script new runs)",
  usage: 'defaults read [<domain> [<key>]]',
  flags: [],
  args: [
    { name: 'domain', required: false },
    { name: 'key', required: false },
  ],
  examples: ['defaults read', 'defaults read dev.exe new.setup-script'],
  mutates: false,
  async run(ctx, input) {
    const [domain, key] = input.args;
    if (domain !== undefined) checkDefaultsDomain(domain);
    if (domain !== undefined && key !== undefined) defaultLimit(domain, key);
    const stored = ctx.deps.store
      .listDefaults(ctx.principal.accountId)
      .filter(
        (d) =>
          (domain === undefined || d.domain === domain) && (key === undefined || d.key === key),
      );
    if (key !== undefined && stored.length === 0) {
      throw commandFailed(`default ${domain} ${key} is not set`, {
        hint: `set it with "defaults write ${domain} ${key} <value>"`,
      });
    }
    const data: DefaultsData = { defaults: {} };
    for (const d of stored) (data.defaults[d.domain] ??= {})[d.key] = d.value;
    return json(data);
  },
};
