// What a user may name as a custom domain of a VM (`domain add`, SPEC §3). The name becomes a
// Host the VM proxy routes, so it is hostile input: only plain DNS names pass, and never one
// that reaches into the names the service itself answers to.
import { commandFailed } from '../../errors.js';
import { quote } from './validate.js';

/** One DNS label of letters, digits and inner dashes (punycode `xn--` included). */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** RFC 1035's longest name, without the final dot. */
const MAX_NAME_LENGTH = 253;

/** A custom domain as `domain add` stores it. */
export interface CustomDomain {
  /** Lower case, without the `*.` of a wildcard. */
  domain: string;
  /** The domain and every name under it. */
  wildcard: boolean;
}

/**
 * The domain `text` names (`app.example.com`, or `*.example.com` for a wildcard), compared in
 * lower case. `serviceDomains` are the server's `--domain` and `--vm-domain`: a custom domain
 * equal to one, under one, or above one (a wildcard over the service's names) is refused.
 *
 * @throws 422 `invalid domain "x": ...` or `domain "x" is one of the service's own names: ...`.
 */
export function parseCustomDomain(
  text: string,
  wildcardFlag: boolean,
  serviceDomains: readonly string[],
): CustomDomain {
  const lower = text.toLowerCase();
  const wildcard = wildcardFlag || lower.startsWith('*.');
  const domain = lower.startsWith('*.') ? lower.slice(2) : lower;
  const labels = domain.split('.');
  const plain =
    domain.length <= MAX_NAME_LENGTH &&
    labels.length >= 2 &&
    labels.every((label) => LABEL.test(label)) &&
    // An all-digit last label is an IP address, never a name.
    !/^[0-9]+$/.test(labels.at(-1)!);
  if (!plain) {
    throw commandFailed(
      `invalid domain ${quote(text)}: use a DNS name such as app.example.com (letters, digits, dashes; "*." in front for a wildcard)`,
    );
  }
  for (const own of serviceDomains.map((d) => d.toLowerCase())) {
    if (domain === own || domain.endsWith(`.${own}`) || own.endsWith(`.${domain}`)) {
      throw commandFailed(
        `domain ${quote(text)} is one of the service's own names: use a domain of your own`,
      );
    }
  }
  return { domain, wildcard };
}
