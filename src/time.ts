/**
 * Unix seconds as an RFC 3339 UTC string with whole seconds, e.g. `2025-01-02T03:04:05Z`: the
 * one form every time exectl stores or prints takes (a fraction is cut, not rounded). Strings
 * in this shape also sort chronologically.
 */
export function rfc3339(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
