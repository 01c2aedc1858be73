import { commandFailed } from '../../../errors.js';
import { checkDefaultValue, defaultLimit } from '../../rules/defaults.js';
import type { ReadInput } from '../../dispatch/types.js';
import { json, type ServiceCommand } from '../shared/command.js';

interface DefaultChangedData {
  domain: string;
  key: string;
  status: 'written' | 'deleted';
}

/**
 * `defaults write <domain> <key> [<value>]` — keeps a default for the caller's account. Without
 * a value it is read from standard input (over SSH: `cat setup.sh | ssh host defaults write
 * dev.exe new.setup-script`, the real service's documented way).
 */
export const defaultsWriteCommand: ServiceCommand = {
  path: 'defaults write',
  description: "Set one of your account's defaults (without a value: read from standard input)",
  usage: 'defaults write <domain> <key> [<value>]',
  flags: [],
  args: [
    { name: 'domain', required: true },
    { name: 'key', required: true },
    { name: 'value', required: false },
  ],
  examples: ["defaults write dev.exe new.setup-script 'apt-get install -y jq'"],
  mutates: true,
  async run(ctx, input) {
    const [domain = '', key = '', given] = input.args;
    const limit = defaultLimit(domain, key);
    const value = given ?? (await valueFromInput(ctx.readInput, domain, key, limit));
    ctx.deps.store.writeDefault(
      ctx.principal.accountId,
      domain,
      key,
      checkDefaultValue(domain, key, value),
    );
    const data: DefaultChangedData = { domain, key, status: 'written' };
    return json(data);
  },
};

/** `defaults delete <domain> <key>` — forgets one default (422 when it was not set). */
export const defaultsDeleteCommand: ServiceCommand = {
  path: 'defaults delete',
  description: "Remove one of your account's defaults",
  usage: 'defaults delete <domain> <key>',
  flags: [],
  args: [
    { name: 'domain', required: true },
    { name: 'key', required: true },
  ],
  examples: ['defaults delete dev.exe new.setup-script'],
  mutates: true,
  async run(ctx, input) {
    const [domain = '', key = ''] = input.args;
    defaultLimit(domain, key);
    if (!ctx.deps.store.deleteDefault(ctx.principal.accountId, domain, key)) {
      throw commandFailed(`default ${domain} ${key} is not set`);
    }
    const data: DefaultChangedData = { domain, key, status: 'deleted' };
    return json(data);
  },
};

/**
 * The value piped into the command, as UTF-8 text.
 * @throws 422 without an input to read (/exec), or past `limit` bytes.
 */
async function valueFromInput(
  readInput: ReadInput | undefined,
  domain: string,
  key: string,
  limit: number,
): Promise<string> {
  if (readInput === undefined) {
    throw commandFailed('missing argument <value>', {
      hint: `give the value, or pipe it in over SSH: "cat file | ssh <host> defaults write ${domain} ${key}"`,
    });
  }
  const bytes = await readInput(limit);
  if (bytes === null) throw commandFailed(`the value of ${domain} ${key} exceeds ${limit} bytes`);
  return bytes.toString('utf8');
}
