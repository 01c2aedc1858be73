import { newSvc1 } from '../../../token/format.js';
import { generateOneShotEd25519Signer } from '../../../token/generated-key.js';
import { mintSvc0 } from '../../../token/mint.js';
import { serializePermissions } from '../../../token/permissions.js';
import { rfc3339 } from '../../../time.js';
import { json, nowSeconds, type ServiceCommand } from '../shared/command.js';
import { freeKeyName } from './keys.js';
import {
  grantableCmds,
  parseCmdsFlag,
  delegableExpiry,
  tokenNamespace,
} from '../shared/token-options.js';
import { checkKeyName, checkTag, quote } from '../../rules/validate.js';
import { findVisibleVm, refuseIfTagScoped } from '../shared/vm-access.js';
import { commandFailed } from '../../../errors.js';
import type { Principal } from '../../dispatch/types.js';
import { svc1In, tokenDialectOf } from '../../../dialects.js';
import { dialectsOf } from '../../config.js';

const DEFAULT_EXP = '30d';

interface ApiKeyData {
  label: string;
  token: string;
  namespace: string;
  fingerprint: string;
  expires_at: string | null;
}

/**
 * `ssh-key generate-api-key [--label L] [--vm V] [--tag T] [--cmds a,b] [--exp 30d|never]` —
 * a token for programs. A fresh ed25519 key is made in memory, registered on the caller's account under the
 * label, signs `{"exp":...,"cmds":[...]}` (compact; no `exp` with `--exp never`), and is
 * dropped: it can never sign again, and `ssh-key remove <label>` revokes
 * the token. The answer is the svc1 handle of that svc0. Default lifetime 30 days, cut to the
 * request token's own `exp`; a longer `--exp` (or `never`) than that is refused; with `--vm`
 * the token is a VM token (`v0@<vm>.<domain>`) for a VM the caller can see. A caller holding a
 * token grants at most that token's commands (no `--cmds`: exactly those); over SSH, without
 * `--cmds`, the field is left out and the defaults apply. With `--tag T` the key is scoped to
 * the VMs tagged T (see commands/shared/vm-access.ts); a key made by a tag-scoped key always
 * gets that key's tag, so scoping only ever narrows.
 */
export const generateApiKeyCommand: ServiceCommand = {
  path: 'ssh-key generate-api-key',
  description:
    'Make an API token (svc1) signed by a fresh key registered under a label; remove the key to revoke it',
  usage: 'ssh-key generate-api-key [--label L] [--vm V] [--tag T] [--cmds a,b] [--exp 30d|never]',
  flags: [
    {
      name: 'label',
      type: 'string',
      description: 'Name of the new key (default: api-key-<date>, made unique)',
    },
    { name: 'vm', type: 'string', description: 'Make a token for this VM (v0@<vm>.<domain>)' },
    {
      name: 'tag',
      type: 'string',
      description:
        'Scope the key to VMs tagged T: its new VMs get T, it sees only VMs tagged T, it cannot change tags',
    },
    {
      name: 'cmds',
      type: 'string[]',
      description:
        "Commands the token may run, comma-separated, repeatable (default: the caller's own)",
    },
    {
      name: 'exp',
      type: 'string',
      // No declared default: an --exp left out is cut to the request token's expiry, one given
      // past it is refused, so the two must stay apart.
      description:
        "Lifetime: a duration (30s, 15m, 1h, 7d, 2w, 1y) or never (default 30d, cut to the request token's own expiry; a longer --exp is refused)",
    },
  ],
  args: [],
  examples: [
    'ssh-key generate-api-key --exp=30d',
    "ssh-key generate-api-key --label ci --cmds 'ls,ssh web' --exp 7d",
    'ssh-key generate-api-key --vm web --exp 1y',
    "ssh-key generate-api-key --label ci --tag ci --cmds 'ls,new,ssh,rm' --exp 30d",
  ],
  mutates: true,
  async run(ctx, input) {
    const { deps, principal } = ctx;
    const tag = scopeTag(principal, input.flags.string('tag'));
    const vmName = input.flags.string('vm');
    if (vmName !== undefined) {
      const vm = findVisibleVm(ctx, vmName);
      // A VM token its own scope would shut out could never be used.
      if (tag !== null && !vm.tags.includes(tag)) {
        throw commandFailed(`vm ${quote(vmName)} is not tagged ${quote(tag)}`, {
          hint: `tag it first (tag ${vmName} ${tag}), or leave out --vm`,
        });
      }
    }
    const namespace = tokenNamespace(deps, vmName);
    const now = nowSeconds(ctx);
    const exp = delegableExpiry(input.flags.string('exp'), DEFAULT_EXP, now, principal.exp);
    const cmds = grantableCmds(
      principal.cmds,
      parseCmdsFlag(input.flags.strings('cmds'), ctx.registry),
    );
    const given = input.flags.string('label');
    const base = `api-key-${rfc3339(now).slice(0, 10)}`;
    const label =
      given === undefined
        ? freeKeyName(ctx, (n) => (n === 1 ? base : `${base}-${n}`))
        : checkKeyName(given);

    const payload = serializePermissions({
      ...(exp === null ? {} : { exp }),
      ...(cmds === undefined ? {} : { cmds }),
    });
    const signer = generateOneShotEd25519Signer(label);
    const svc0 = await mintSvc0(payload, signer, namespace);
    const key = signer.publicKey;
    // Registered only once the token exists, so a refused label leaves nothing behind.
    deps.store.addKey({
      accountId: principal.accountId,
      fingerprint: key.fingerprint,
      name: label,
      publicKey: key.toOpenSsh(),
      keyType: key.type,
      tag,
    });
    const svc1 = deps.store.findOrCreateSvc1({
      fingerprint: key.fingerprint,
      namespace,
      payload: Buffer.from(payload, 'utf8'),
      svc0,
      exp,
      newHandle: newSvc1,
    });
    const data: ApiKeyData = {
      label,
      // `exe1.…` under --compat exe.dev, as the real service's clients store it (SPEC §3).
      token: svc1In(svc1.handle, tokenDialectOf(dialectsOf(deps.config))),
      namespace,
      fingerprint: key.fingerprint,
      expires_at: exp === null ? null : rfc3339(exp),
    };
    return json(data);
  },
};

/**
 * The tag the new key is scoped to: `--tag` (checked as a tag), or the caller's own tag when the
 * caller's key is scoped — which cannot make a key for another tag or none.
 *
 * @throws 422 `invalid tag "x": ...`; 403 when a scoped caller names another tag.
 */
function scopeTag(principal: Principal, given: string | undefined): string | null {
  if (given !== undefined) checkTag(given);
  if (principal.tag !== null && given !== undefined && given !== principal.tag) {
    refuseIfTagScoped(principal, `make a key for tag ${quote(given)}`);
  }
  return principal.tag ?? given ?? null;
}
