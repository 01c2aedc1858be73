/**
 * Headers about one connection rather than the message (RFC 9110 §7.6.1, plus the old
 * `Keep-Alive` and `Proxy-Connection`): a proxy never forwards them. Shared by the VM proxy and
 * the integration proxy.
 */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
