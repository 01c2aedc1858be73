// The check at use (SPEC §6: "names are resolved at use too, so DNS cannot change the answer"):
// the integration proxy's connection to a target resolves its name through this guard, which
// refuses private addresses and hands the socket only the addresses it checked. Node connects
// to what the lookup returns without asking DNS again, so an answer that changes between the
// check and the connection (DNS rebinding) never reaches the socket.
import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { ExectlError } from '../../errors.js';
import { isPrivateAddress } from '../rules/private-address.js';
import { hostAddresses, PRIVATE_TARGET_REASON, resolveTargetHost } from './target-policy.js';

/** Resolves a URL's hostname to IP addresses; the system resolver except in tests. */
export type HostResolver = (hostname: string) => Promise<string[]>;

/**
 * The socket options that keep a forwarded request of integration `name` off private
 * addresses: none when the operator allows private targets; else, for a name, a `lookup` that
 * refuses it when any address it resolves to is private; an IP literal (which node connects to
 * without a lookup) is checked here and now.
 *
 * @throws ExectlError `forbidden` `integration "x" refused: it reaches a loopback, ...` for a
 *   private literal. The lookup fails with the same error, through the request's `error` event.
 */
export function guardedConnection(
  url: URL,
  name: string,
  allowPrivateTargets: boolean,
  resolve: HostResolver = resolveTargetHost,
): { lookup?: LookupFunction } {
  if (allowPrivateTargets) return {};
  const refused = (addresses: readonly string[]) =>
    new ExectlError('forbidden', `integration "${name}" refused: ${PRIVATE_TARGET_REASON}`, {
      logDetail: `${url.host} is ${addresses.join(', ')}`,
    });
  const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(literal) !== 0) {
    if (isPrivateAddress(literal, hostAddresses())) throw refused([literal]);
    return {};
  }
  const lookup: LookupFunction = (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const own = hostAddresses();
        if (addresses.some((address) => isPrivateAddress(address, own))) {
          callback(refused(addresses), '');
          return;
        }
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const checked: LookupAddress[] = addresses
          .map((address) => ({ address, family: isIP(address) }))
          .filter((found) => wanted === 0 || found.family === wanted);
        const first = checked[0];
        if (first === undefined) {
          const none = Object.assign(new Error(`no IPv${wanted} address for ${hostname}`), {
            code: 'ENOTFOUND',
          });
          callback(none, '');
        } else if (options.all === true) callback(null, checked);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
  return { lookup };
}

/** Whether `error` (from a forwarded request) is the guard's refusal rather than a failure. */
export function isGuardRefusal(error: unknown): error is ExectlError {
  return error instanceof ExectlError && error.code === 'forbidden';
}
