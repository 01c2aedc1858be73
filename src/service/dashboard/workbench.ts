// The token workbench's decoding (SPEC §11): what `exectl inspect --json` reports of a pasted
// token, its signature checked against the signed-in account's own registered keys. The
// report holds the permissions as signed, never the token or its signature.
import { inspectToken, type InspectReport } from '../../inspection/report.js';
import type { TrustedKey } from '../../inspection/trusted-keys.js';
import { parsePublicKey } from '../../token/keys.js';
import type { ServiceDeps } from '../deps.js';

/** `token` inspected now, for the account `accountId`. */
export function inspectForAccount(
  deps: Pick<ServiceDeps, 'store' | 'config' | 'now'>,
  accountId: number,
  token: string,
): InspectReport {
  const trusted: TrustedKey[] = deps.store
    .listKeys(accountId)
    .map((record) => ({ key: parsePublicKey(record.publicKey), namespaces: undefined }));
  const nowSeconds = Math.floor(deps.now() / 1000);
  // A svc1 is opaque: inspect tells only that it is well-formed, as `exectl inspect` does.
  return inspectToken(token, nowSeconds, trusted, `v0@${deps.config.domain}`).report;
}
