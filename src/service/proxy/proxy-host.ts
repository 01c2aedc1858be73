// Which requests belong to the VM proxy (SPEC §6): those addressed to `<vm>.<domain>`, and
// those addressed to a custom domain of a VM (`domain add`, SPEC §3).

/** One DNS label, as a VM name is (SPEC §3), but loose enough to route any label to the proxy. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A DNS name of such labels: only such a Host is looked up among custom domains. */
const DNS_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** The name of a `Host` header: lower case, without its port or a final dot. */
function hostName(host: string): string {
  return host.toLowerCase().replace(/:\d*$/, '').replace(/\.$/, '');
}

/**
 * The VM label of a `Host` header `<label>.<domain>[:port]` (case-insensitive; the port and a
 * final dot are ignored), or null when the request is for the service's own address. Any label
 * is returned, whether or not a VM has that name: the proxy must answer a missing VM exactly
 * as a private one.
 */
export function vmLabelFromHost(host: string | undefined, domain: string): string | null {
  if (host === undefined) return null;
  const name = hostName(host);
  const suffix = `.${domain.toLowerCase()}`;
  if (!name.endsWith(suffix)) return null;
  const label = name.slice(0, -suffix.length);
  return LABEL.test(label) ? label : null;
}

/**
 * The VM label a `Host` routes to: `<label>.<domain>` as {@link vmLabelFromHost}, else the VM
 * whose custom domain it is (`vmOfDomain`, given the name only when it is a plain DNS name, so
 * nothing hostile reaches the lookup), else null: the service's own address.
 */
export function routeOfHost(
  host: string | undefined,
  domain: string,
  vmOfDomain: (name: string) => string | undefined,
): string | null {
  const label = vmLabelFromHost(host, domain);
  if (label !== null || host === undefined) return label;
  const name = hostName(host);
  return DNS_NAME.test(name) ? (vmOfDomain(name) ?? null) : null;
}
