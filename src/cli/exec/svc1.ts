// `exectl mint --svc1` (SPEC §8, §3 svc0-to-svc1): trade a freshly minted svc0 for the short
// svc1 handle the server keeps for it.
import { ExectlError } from '../../errors.js';
import type { Signer } from '../../token/keys.js';
import type { CliContext } from '../context.js';
import { responseError } from './answer.js';
import { sendExec } from './send.js';
import { configuredToken, describeSigner, mintRequestToken } from './token.js';
import type { Settings } from '../settings.js';
import { joinWords } from './line.js';

const SCOPE = 'svc0-to-svc1';

/**
 * Posts `svc0-to-svc1 [--vm V] <svc0>` to the service and returns the svc1 token. The request
 * carries the configured token (EXECTL_TOKEN, the profile's), else one minted by `signer` that
 * allows only `svc0-to-svc1` for 5 minutes — the key that signed the svc0, so no second
 * passphrase prompt.
 *
 * @throws ExectlError of the answer's status; `server_error` when a 200 holds no svc1 token.
 */
export async function exchangeForSvc1(
  ctx: CliContext,
  opts: { svc0: string; vm: string | undefined; settings: Settings; signer: Signer },
): Promise<string> {
  const { settings } = opts;
  const words = [SCOPE, ...(opts.vm === undefined ? [] : ['--vm', opts.vm]), opts.svc0];
  const configured = configuredToken(ctx, settings, undefined);
  const token =
    configured ??
    (await mintRequestToken({
      signer: opts.signer,
      namespace: settings.namespace,
      scope: SCOPE,
      nowSeconds: ctx.clock.nowSeconds(),
    }));
  const signedBy =
    configured === undefined
      ? describeSigner(opts.signer, settings)
      : 'the configured token (EXECTL_TOKEN or the profile)';
  const response = await sendExec(ctx, {
    url: settings.url,
    urlFrom: settings.urlFrom,
    token,
    prepared: { line: joinWords(words), scope: SCOPE, path: SCOPE, repeatable: false },
  });
  if (response.status !== 200) {
    throw responseError(response, { url: settings.url, scope: SCOPE, signedBy });
  }
  const svc1 = svc1Of(response.body);
  if (svc1 === undefined) {
    throw new ExectlError('server_error', `${settings.url} answered svc0-to-svc1 without a token`, {
      hint: 'check that --url points at an exectl server',
    });
  }
  return svc1;
}

function svc1Of(body: Buffer): string | undefined {
  try {
    const data = JSON.parse(body.toString('utf8')) as { token?: unknown } | null;
    return typeof data?.token === 'string' && data.token.startsWith('svc1.')
      ? data.token
      : undefined;
  } catch {
    return undefined;
  }
}
