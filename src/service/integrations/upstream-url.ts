// Where a forwarded request goes: the integration's target with the VM's path appended.
import { ExectlError } from '../../errors.js';

/**
 * The target URL for `rest` (what followed `{reflection_url}/i/<name>`, query included):
 * `https://api.example.com/v1` + `/models?x=1` → `https://api.example.com/v1/models?x=1`.
 * Dot segments are resolved as any URL parser would, and a path that would climb out of the
 * target's path (`/../admin`, `/%2e%2e/admin`) is refused, so an integration reaches only
 * what its target names; the origin can never change, whatever `rest` holds.
 *
 * @throws ExectlError `bad_request` `path leaves the integration's target`.
 */
export function upstreamUrl(target: string, rest: string): URL {
  const base = new URL(target);
  const basePath = base.pathname.replace(/\/+$/, '');
  const queryAt = rest.indexOf('?');
  const path = queryAt < 0 ? rest : rest.slice(0, queryAt);

  // Built by setting parts, not by resolving a string: `//host` in `rest` stays a path.
  const url = new URL(base.origin);
  url.pathname = `${basePath}${path}`;
  if (queryAt >= 0) url.search = rest.slice(queryAt);
  if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) {
    throw new ExectlError('bad_request', "path leaves the integration's target");
  }
  return url;
}
