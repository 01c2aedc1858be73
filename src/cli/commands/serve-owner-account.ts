// The owner shown in the banner: created on a data folder without accounts (SPEC §7 first
// start), else the oldest account. Git and ~/.ssh are read only when an owner must be made.
import { bootstrapOwner, hasNoAccounts } from '../../service/bootstrap.js';
import type { Store } from '../../service/store/index.js';
import type { PublicKey } from '../../token/keys.js';
import type { CliContext } from '../context.js';
import { warn } from '../output.js';
import type { BannerFacts } from './serve-banner.js';
import type { ServeSettings } from './serve-options.js';
import { ownerEmail, readHomeSshKeys } from './serve-owner.js';

/**
 * Creates the owner account when the store has none — email from --owner, git or $USER; keys
 * from `authorizedKeys` (the --authorized-key files), else every ~/.ssh/*.pub — and returns
 * the owner for the banner. Files of ~/.ssh that hold no usable key are skipped with a warning.
 */
export async function bootstrapOwnerAccount(
  ctx: CliContext,
  store: Store,
  settings: Pick<ServeSettings, 'owner'>,
  authorizedKeys: readonly PublicKey[] | undefined,
): Promise<BannerFacts['owner']> {
  if (hasNoAccounts(store)) {
    const email = await ownerEmail(settings.owner, ctx.env);
    const keys = authorizedKeys ?? (await homeKeys(ctx));
    const made = bootstrapOwner(store, email, keys);
    if (made !== undefined) return { email, created: true, keys: made.added };
  }
  warnIgnored(ctx, store, settings.owner, authorizedKeys ?? []);
  const first = store.listAccounts()[0]!;
  return { email: first.email, created: false, keys: store.listKeys(first.id) };
}

async function homeKeys(ctx: CliContext): Promise<PublicKey[]> {
  const { keys, skipped } = await readHomeSshKeys(ctx.env);
  for (const { source, reason } of skipped) warn(ctx, `skipping ${source}: ${reason}`);
  return keys;
}

/**
 * --owner and --authorized-key act on an empty data folder only. When they ask for something
 * the folder does not have, say so rather than let the user believe it was done.
 */
function warnIgnored(
  ctx: CliContext,
  store: Store,
  owner: string | undefined,
  keys: readonly PublicKey[],
): void {
  const missingOwner = owner !== undefined && store.findAccountByEmail(owner) === undefined;
  const missingKeys = keys.filter((k) => store.findKeyByFingerprint(k.fingerprint) === undefined);
  if (!missingOwner && missingKeys.length === 0) return;
  const what = missingOwner
    ? `--owner ${owner}`
    : `--authorized-key ${missingKeys[0]!.fingerprint}`;
  warn(
    ctx,
    `${what} is not applied: the data folder already has accounts; add it with \`exectl serve accounts add EMAIL --key FILE\``,
  );
}
