// Who a key acts as on the server: a `whoami` signed by it with a token that lives one minute.
// `auth status` checks each key with it; key-fallback.ts names the account a fallback key
// acts as.
import { mintSvc0 } from '../../token/mint.js';
import type { Signer } from '../../token/keys.js';
import { serializePermissions } from '../../token/permissions.js';
import type { CliContext } from '../context.js';
import type { Settings } from '../settings.js';
import { postExec } from './http.js';

/** How long the token of each check lives: one `whoami`, now. */
const CHECK_TOKEN_SECONDS = 60;

/** The server's answer: the account and key name when it knows the key, else its status. */
export type WhoamiAnswer =
  | { status: 200; email: string; keyName: string }
  | { status: number; email?: undefined; keyName?: undefined };

/** Asks the server at `settings.url` whom `signer` acts as. */
export async function whoamiWith(
  ctx: CliContext,
  settings: Settings,
  signer: Signer,
): Promise<WhoamiAnswer> {
  const payload = serializePermissions({
    exp: ctx.clock.nowSeconds() + CHECK_TOKEN_SECONDS,
    cmds: ['whoami'],
  });
  const token = await mintSvc0(payload, signer, settings.namespace);
  const response = await postExec(settings.url, token, 'whoami', { urlFrom: settings.urlFrom });
  if (response.status !== 200) return { status: response.status };
  try {
    const who = JSON.parse(response.body.toString('utf8')) as {
      email?: unknown;
      ssh_keys?: { name?: unknown; current?: unknown }[];
    };
    const key = Array.isArray(who.ssh_keys)
      ? who.ssh_keys.find((k) => k.current === true)
      : undefined;
    if (typeof who.email !== 'string') return { status: 502 };
    return {
      status: 200,
      email: who.email,
      keyName: typeof key?.name === 'string' ? key.name : '?',
    };
  } catch {
    // Not the JSON of an exectl server's whoami.
    return { status: 502 };
  }
}
