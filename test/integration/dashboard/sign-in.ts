// What the dashboard tests share: a sign-in link asked for over /exec, raw HTTP requests
// whose Host and Origin the test chooses, and signing in with a link.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { COMMAND_CATALOG } from '../../../src/command-catalog.js';
import type { GeneratedKey } from '../../helpers/keys.js';
import type { TestService } from '../../helpers/service.js';

/** Every command path: what `exectl run browser` asks with. */
export const EVERY_CMD = COMMAND_CATALOG.map((e) => e.path);

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request to `svc`'s listener with exactly these headers (Host included). */
export function raw(
  svc: TestService,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawAnswer> {
  const url = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method, path, headers, setHost: !('Host' in headers) },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A fresh sign-in link for `key`'s account, asked for with a token allowing `cmds`. */
export async function askForLink(
  svc: TestService,
  key: GeneratedKey = svc.owner.key,
  cmds: readonly string[] = EVERY_CMD,
): Promise<string> {
  const token = await svc.token(JSON.stringify({ cmds }), key);
  const answer = await raw(svc, 'POST', '/exec', { Authorization: `Bearer ${token}` }, 'browser');
  assert.equal(answer.status, 200, answer.body);
  const link = (JSON.parse(answer.body) as { magic_link: string }).magic_link;
  assert.match(link, new RegExp(`^${svc.url}/_/signin/[A-Za-z0-9_-]{43}$`));
  return link;
}

/** Opens `link` and returns the session cookie it sets (`name=value`). */
export async function signIn(svc: TestService, link: string): Promise<string> {
  const answer = await raw(svc, 'GET', new URL(link).pathname);
  assert.equal(answer.status, 303, answer.body);
  assert.equal(answer.headers.location, '/_/');
  const setCookie = [answer.headers['set-cookie'] ?? []].flat();
  assert.equal(setCookie.length, 1);
  return setCookie[0]!.split(';')[0]!;
}

/** The headers of a request from the dashboard's own page. */
export function fromPage(svc: TestService, cookie: string): Record<string, string> {
  return { Cookie: cookie, Origin: svc.url };
}
