// The service URL the user gave (`--url`, EXECTL_URL, a profile's `url`) and the `/exec`
// endpoint under it. A wrong URL is said as what it is, naming where it came from (SPEC §8).
import { ExectlError } from '../../errors.js';

/**
 * The `/exec` endpoint of the service at `url` (e.g. `http://127.0.0.1:7070` or
 * `https://exec.example.com/base/`); `from` names where the URL came from.
 *
 * @throws ExectlError `usage` when `url` is not an http(s) URL, or already ends in `/exec`
 *   (copied from a curl example): exectl adds it itself.
 */
export function execEndpoint(url: string, from = '--url'): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    parsed = new URL('invalid:');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ExectlError('usage', `${from} "${url}" is not an http:// or https:// URL`, {
      hint: 'e.g. http://127.0.0.1:7070',
    });
  }
  const path = parsed.pathname.replace(/\/+$/, '');
  if (/\/exec$/.test(path)) {
    const base = `${parsed.origin}${path.slice(0, -'/exec'.length)}`;
    throw new ExectlError('usage', `${from} "${url}" ends in /exec, which exectl adds itself`, {
      hint: `give the service's address: ${base}`,
    });
  }
  return `${parsed.origin}${path}/exec`;
}
