// The tag scope of an API key (`ssh-key generate-api-key --tag T`, SPEC §3), in one place: which
// commands such a key may run at all (checked by the dispatcher, before any command runs), and
// what it may see of the account once it runs one (its VMs, keys and integrations), read by the
// commands through commands/shared/vm-access.ts and by the VM proxy.
import { ExectlError } from '../../errors.js';
import type { Principal } from '../dispatch/types.js';
import type { VmRecord } from '../store/index.js';
import { quote } from './validate.js';

/**
 * What a tag-scoped key may do with one command:
 * - `narrowed`: it runs, seeing only what is in the scope: VMs tagged T (any other is "not
 *   found"), the key itself, and the integrations attached to `tag:T`;
 * - `{ refused }`: never, whatever its arguments (403); `refused` completes "cannot ...".
 */
type ScopedKeyRule = 'narrowed' | { refused: string };

const TEAM = { refused: 'change the team' };
const ACCOUNT_DEFAULTS = { refused: "use the account's defaults" };
/**
 * A scoped key is a machine's credential (CI, an agent): it may close a VM of its tag, never open
 * one to more people, since a share it made would outlive the key and reach past its owner.
 */
const REACH = { refused: 'open a vm to more people' };

/**
 * Every command path of the service (a test keeps this equal to the registry). A path missing
 * here is refused: a new command is closed to scoped keys until someone decides otherwise.
 */
const SCOPED_KEY_RULES: Readonly<Record<string, ScopedKeyRule>> = {
  help: 'narrowed',
  whoami: 'narrowed',
  ls: 'narrowed',
  new: 'narrowed',
  // Its dashboard session runs as the same key, scope and all.
  browser: 'narrowed',
  cp: 'narrowed',
  rm: 'narrowed',
  restart: 'narrowed',
  rename: 'narrowed',
  // Adding or removing a tag would move VMs into or out of the scope.
  tag: { refused: 'change tags' },
  comment: 'narrowed',
  stat: 'narrowed',
  resize: 'narrowed',
  pause: 'narrowed',
  resume: 'narrowed',
  'ssh-key list': 'narrowed',
  // A key it added could be unscoped, or an owner's key re-added under its tag.
  'ssh-key add': { refused: 'add keys' },
  // Only its own key is in reach: removing it is how a leaked key is revoked.
  'ssh-key remove': 'narrowed',
  'ssh-key rename': 'narrowed',
  // The keys it makes get its tag and at most its token's commands and lifetime.
  'ssh-key generate-api-key': 'narrowed',
  'svc0-to-svc1': 'narrowed',
  'share show': 'narrowed',
  'share port': 'narrowed',
  'share set-public': REACH,
  'share set-private': 'narrowed',
  'share add': REACH,
  'share remove': 'narrowed',
  'share add-link': REACH,
  'share remove-link': 'narrowed',
  'share access': REACH,
  // Only its tag's VMs are in reach (the others are "not found").
  'domain add': 'narrowed',
  'domain rm': 'narrowed',
  'domain ls': 'narrowed',
  // The account's defaults shape every VM it makes, far past the key's tag.
  'defaults read': ACCOUNT_DEFAULTS,
  'defaults write': ACCOUNT_DEFAULTS,
  'defaults delete': ACCOUNT_DEFAULTS,
  'share receive-email': 'narrowed',
  team: 'narrowed',
  'team members': 'narrowed',
  'team add': TEAM,
  'team remove': TEAM,
  'team accept': TEAM,
  'team decline': TEAM,
  'team leave': TEAM,
  // The account's region is the owner's choice, as the real service keeps it from such keys.
  'set-region': { refused: 'change the region' },
  'integrations list': 'narrowed',
  'integrations add': 'narrowed',
  'integrations remove': 'narrowed',
  'integrations rename': 'narrowed',
  'integrations attach': 'narrowed',
  'integrations detach': 'narrowed',
  ssh: 'narrowed',
};

/** The command paths {@link SCOPED_KEY_RULES} decides (for the test that compares them). */
export function scopedKeyRulePaths(): string[] {
  return Object.keys(SCOPED_KEY_RULES);
}

/**
 * Refuses a tag-scoped caller a command such a key may never run (SPEC §3: it cannot add or
 * remove tags, add keys or change the team; nor open a VM to more people, `share add` and
 * `share set-public`), or one with no rule.
 *
 * @throws 403 `this key is limited to vms tagged "ci" and cannot change the team: use a key
 *   without --tag`.
 */
export function authorizeTagScope(principal: Pick<Principal, 'tag'>, path: string): void {
  if (principal.tag === null) return;
  const rule = Object.hasOwn(SCOPED_KEY_RULES, path) ? SCOPED_KEY_RULES[path] : undefined;
  if (rule === 'narrowed') return;
  throw tagScopeRefusal(principal.tag, rule?.refused ?? `run ${path}`);
}

/**
 * The 403 for what a key scoped to `tag` may not do; `what` completes "cannot ...".
 * @example tagScopeRefusal('ci', 'add keys').message
 * // 'this key is limited to vms tagged "ci" and cannot add keys: use a key without --tag'
 */
export function tagScopeRefusal(tag: string, what: string): ExectlError {
  return new ExectlError(
    'forbidden',
    `this key is limited to vms tagged ${quote(tag)} and cannot ${what}: use a key without --tag`,
  );
}

/** True when the caller's key is not tag-scoped, or the VM carries the key's tag. */
export function isInTagScope(
  principal: Pick<Principal, 'tag'>,
  vm: Pick<VmRecord, 'tags'>,
): boolean {
  return principal.tag === null || vm.tags.includes(principal.tag);
}

/** True when the caller's key is not tag-scoped, or `key` is the caller's own key. */
export function isKeyInTagScope(
  principal: Pick<Principal, 'tag' | 'keyFingerprint'>,
  key: { fingerprint: string },
): boolean {
  return principal.tag === null || key.fingerprint === principal.keyFingerprint;
}

/** True when the caller's key is not tag-scoped, or the integration is attached to its tag. */
export function isIntegrationInTagScope(
  principal: Pick<Principal, 'tag'>,
  integration: { attachments: readonly string[] },
): boolean {
  return principal.tag === null || integration.attachments.includes(`tag:${principal.tag}`);
}
