// Which requests belong to the VM proxy (SPEC §6): those addressed to `<vm>.<domain>`.

/** One DNS label, as a VM name is (SPEC §3), but loose enough to route any label to the proxy. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The VM label of a `Host` header `<label>.<domain>[:port]` (case-insensitive; the port and a
 * final dot are ignored), or null when the request is for the service's own address. Any label
 * is returned, whether or not a VM has that name: the proxy must answer a missing VM exactly
 * as a private one.
 */
export function vmLabelFromHost(host: string | undefined, domain: string): string | null {
  if (host === undefined) return null;
  const name = host.toLowerCase().replace(/:\d*$/, '').replace(/\.$/, '');
  const suffix = `.${domain.toLowerCase()}`;
  if (!name.endsWith(suffix)) return null;
  const label = name.slice(0, -suffix.length);
  return LABEL.test(label) ? label : null;
}
