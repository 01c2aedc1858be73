// The token of a request and its sending, as `run` and `ssh` need them (SPEC §8): a configured
// token (`--token`, EXECTL_TOKEN, the profile's) is sent as it is; otherwise a token is minted
// for exactly the command, with each candidate key in turn while the answer is 401
// (key-fallback.ts).
import type { CliContext } from '../context.js';
import type { Settings } from '../settings.js';
import type { Grants } from '../../command-line.js';
import { sendWithEachKey, type FallbackOutcome } from './key-fallback.js';
import { sendExec, type ExecRequest } from './send.js';
import { configuredCredential, mintRequestToken, unknownScope } from './token.js';

/**
 * Sends `request` to `settings.url` with the configured token, else one minted that allows
 * exactly `scope` (plus what `grants` hands on).
 *
 * @throws ExectlError `usage` when a token must be minted but `scope` is unknown; `key_error`
 *   when no key can sign; what sendExec throws.
 */
export async function sendSigned(
  ctx: CliContext,
  settings: Settings,
  opts: {
    /** `--token`. */
    flag: string | undefined;
    scope: string | undefined;
    grants?: Grants | undefined;
    request: Omit<ExecRequest, 'url' | 'urlFrom' | 'token'>;
    /**
     * Started as each request goes out and stopped when its answer's head arrives (a spinner):
     * never while a key is loaded, which may ask a passphrase on the terminal.
     */
    whileWaiting?: () => { stop(): void };
  },
): Promise<FallbackOutcome> {
  const { request, whileWaiting } = opts;
  const sendWith = async (token: string) => {
    const waiting = whileWaiting?.();
    try {
      return await sendExec(ctx, {
        ...request,
        url: settings.url,
        urlFrom: settings.urlFrom,
        token,
        onHead: (head) => {
          waiting?.stop();
          request.onHead?.(head);
        },
      });
    } finally {
      waiting?.stop();
    }
  };
  const configured = configuredCredential(ctx, settings, opts.flag);
  if (configured !== undefined) {
    return {
      response: await sendWith(configured.token),
      signedBy: configured.signedBy,
      configuredToken: configured.token,
    };
  }
  const { scope } = opts;
  if (scope === undefined) throw unknownScope();
  return sendWithEachKey(ctx, settings, async (signer) => {
    const token = await mintRequestToken({
      signer,
      namespace: settings.namespace,
      scope,
      grants: opts.grants,
      nowSeconds: ctx.clock.nowSeconds(),
    });
    return sendWith(token);
  });
}
