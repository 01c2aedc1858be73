// An export without `--with-secrets` names each integration header it leaves out
// (`headers_without_values`). Applying it says, per header the integration still lacks, that
// it forwards without it and how to add it again: silently forwarding without an API key
// would only show up later, as a failure inside a VM.
import { quoteForShell } from '../../shell-words.js';
import type { Account, IntegrationRecord } from '../store/index.js';
import type { SeedIntegration } from './parse.js';

/** One line per header of `wanted.headersWithoutValues` that `stored` has no value for. */
export function missingHeaderWarnings(
  wanted: SeedIntegration,
  stored: IntegrationRecord,
  account: Account,
): string[] {
  const present = new Set(stored.headers.map((line) => headerName(line).toLowerCase()));
  return wanted.headersWithoutValues
    .filter((name) => !present.has(name.toLowerCase()))
    .map(
      (name) =>
        `integration "${stored.name}" of ${account.email}: header "${name}" has no value in this ` +
        `file (exported without --with-secrets): add it again as ${account.email} with ` +
        readdCommand(stored, name),
    );
}

/** `exectl run integrations remove …, then exectl run integrations add …` with every header. */
function readdCommand(stored: IntegrationRecord, missing: string): string {
  const words = ['integrations', 'add', stored.type, '--name', stored.name];
  if (stored.target !== null) words.push('--target', stored.target);
  // Values are secrets and never logged: every header, kept or missing, shows as VALUE.
  for (const name of [...stored.headers.map(headerName), missing]) {
    words.push('--header', `${name}: VALUE`);
  }
  for (const spec of stored.attachments) words.push('--attach', spec);
  const remove = ['integrations', 'remove', stored.name];
  const run = (line: string[]) => `exectl run ${line.map(quoteForShell).join(' ')}`;
  return `${run(remove)}, then ${run(words)}`;
}

function headerName(line: string): string {
  const colon = line.indexOf(':');
  return colon < 0 ? line : line.slice(0, colon);
}
