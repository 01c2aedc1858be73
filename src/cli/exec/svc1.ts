// `exectl mint --svc1` (SPEC §8, §3 svc0-to-svc1): trade a freshly minted svc0 for the short
// svc1 handle the server keeps for it.
import { ExectlError } from '../../errors.js';
import type { Signer } from '../../token/keys.js';
import type { CliContext } from '../context.js';
import { responseError } from './answer.js';
import { sendExec } from './send.js';
import { configuredToken, mintRequestToken, settingsSigner } from './token.js';
import { sendWithEachKey } from './key-fallback.js';
import { mintSvc0 } from '../../token/mint.js';
import type { Settings } from '../settings.js';
import { joinWords } from '../../command-line.js';
import { commandIn, svc0In, type Dialect } from '../../dialects.js';

const SVC1_COMMAND = 'svc0-to-svc1';

/**
 * Signs `payload` for `namespace` and posts `svc0-to-svc1 [--vm V] <svc0>` to the service;
 * returns the svc1 token. The request carries the configured token (EXECTL_TOKEN, the
 * profile's), else one that allows only `svc0-to-svc1` for 5 minutes, minted by the key that
 * signed the svc0 (one passphrase prompt at most); on a 401 both are signed again with each
 * further candidate key (key-fallback.ts).
 *
 * @throws ExectlError of the answer's status; `server_error` when a 200 holds no svc1 token.
 */
export async function exchangeForSvc1(
  ctx: CliContext,
  opts: {
    payload: string;
    namespace: string;
    vm: string | undefined;
    settings: Settings;
    /** Whose names to use: `exe0-to-exe1` and `exe0.` tokens for the real service's (SPEC §12). */
    dialect: Dialect;
  },
): Promise<string> {
  const { settings, dialect } = opts;
  const scope = commandIn(SVC1_COMMAND, dialect);
  const send = async (svc0Signer: Signer, token: string | undefined) => {
    const svc0 = svc0In(await mintSvc0(opts.payload, svc0Signer, opts.namespace), dialect);
    const words = [scope, ...(opts.vm === undefined ? [] : ['--vm', opts.vm]), svc0];
    const requestToken =
      token ??
      svc0In(
        await mintRequestToken({
          signer: svc0Signer,
          namespace: settings.namespace,
          scope,
          nowSeconds: ctx.clock.nowSeconds(),
        }),
        dialect,
      );
    return sendExec(ctx, {
      url: settings.url,
      urlFrom: settings.urlFrom,
      token: requestToken,
      prepared: { line: joinWords(words), scope, path: scope, repeatable: false },
    });
  };
  const configured = configuredToken(ctx, settings, undefined);
  const { response, signedBy } =
    configured === undefined
      ? await sendWithEachKey(ctx, settings, (signer) => send(signer, undefined))
      : {
          response: await send(await settingsSigner(ctx, settings), configured),
          signedBy: 'the configured token (EXECTL_TOKEN or the profile)',
        };
  if (response.status !== 200) {
    throw responseError(response, { url: settings.url, scope, signedBy });
  }
  const svc1 = svc1Of(response.body, dialect);
  if (svc1 === undefined) {
    throw new ExectlError('server_error', `${settings.url} answered ${scope} without a token`, {
      hint: 'check that --url points at an exectl server',
    });
  }
  return svc1;
}

function svc1Of(body: Buffer, dialect: Dialect): string | undefined {
  try {
    const data = JSON.parse(body.toString('utf8')) as { token?: unknown } | null;
    return typeof data?.token === 'string' && data.token.startsWith(dialect.svc1Prefix)
      ? data.token
      : undefined;
  } catch {
    return undefined;
  }
}
