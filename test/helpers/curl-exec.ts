import assert from 'node:assert/strict';
import { run } from './keys.js';

/** A JSON answer of POST /exec, as curl received it. */
export interface CurlAnswer {
  status: number;
  body: unknown;
}

/**
 * Sends one command line to `<url>/exec` with real curl, as the real service's documented
 * examples do (`curl -X POST .../exec -H "Authorization: Bearer $T" -d 'ls'`).
 */
export async function curlExec(url: string, token: string, line: string): Promise<CurlAnswer> {
  const r = await run('curl', [
    '-sS',
    '-X',
    'POST',
    '-H',
    `Authorization: Bearer ${token}`,
    '--data-binary',
    line,
    '-w',
    '\n%{http_code}',
    `${url}/exec`,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const split = r.stdout.lastIndexOf('\n');
  const text = r.stdout.slice(0, split);
  return { status: Number(r.stdout.slice(split + 1)), body: JSON.parse(text) as unknown };
}
