// `exectl profile list`: the profiles of the config file, the one in use marked `*`. Never a
// profile's token, and a URL without the credentials it may carry.
import type { CliContext } from '../../context.js';
import { withoutCredentials } from '../../exec/http.js';
import { printable } from '../../output.js';
import { loadConfigFile } from '../../settings.js';
import { optionalCell, textTable } from '../../../text-views/table.js';

/**
 * Prints a table: NAME, URL, KEY, NAMESPACE, the profile in use (`--profile`, else
 * EXECTL_PROFILE, else the file's default) marked with `*` in the first column.
 */
export function runProfileList(ctx: CliContext, profileFlag: string | undefined): void {
  const config = loadConfigFile(ctx.env);
  const profiles = Object.entries(config?.profiles ?? {});
  const inUse = [profileFlag, ctx.env.EXECTL_PROFILE, config?.defaultProfile].find(
    (name) => name !== undefined && name !== '',
  );
  const rows = profiles.map(([name, profile]) =>
    [
      // A blank, not nothing: the columns stay put whether a profile is marked or not.
      name === inUse ? '*' : ' ',
      name,
      profile.url === undefined ? '-' : withoutCredentials(profile.url),
      optionalCell(profile.key ?? null),
      optionalCell(profile.namespace ?? null),
    ].map(printable),
  );
  ctx.stdout.write(
    textTable(
      ['', 'name', 'url', 'key', 'namespace'],
      rows,
      'no profiles: add one with exectl profile add NAME --url URL',
    ),
  );
}
