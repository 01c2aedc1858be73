// The dashboard under --tls-cert (SPEC §11): the session cookie is Secure, and the Origin that
// matches is https://, never http://.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { run } from '../../helpers/keys.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';
import { EVERY_CMD } from './sign-in.js';

let dir: TempDir;
let svc: TestService;
before(async () => {
  dir = await createTempDir('dash-tls');
  const [cert, key] = [dir.join('cert.pem'), dir.join('key.pem')];
  const made = await run('openssl', [
    ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
    ...['-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'],
  ]);
  assert.equal(made.code, 0, made.stderr);
  svc = await startTestService({ tls: { cert: await readFile(cert), key: await readFile(key) } });
});
after(async () => {
  await svc.stop();
  await dir.remove();
});

function https(method: string, path: string, headers: Record<string, string>, body?: string) {
  const url = new URL(svc.url);
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, method, path, headers, rejectUnauthorized: false },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () =>
            resolve({ status: res.statusCode!, headers: res.headers, body: text }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    },
  );
}

test('under TLS the cookie is Secure, and only the https:// Origin matches', async () => {
  assert.match(svc.url, /^https:\/\//);
  const token = await svc.token(JSON.stringify({ cmds: EVERY_CMD }));
  const asked = await https('POST', '/exec', { Authorization: `Bearer ${token}` }, 'browser');
  const link = (JSON.parse(asked.body) as { magic_link: string }).magic_link;
  assert.match(link, /^https:\/\/127\.0\.0\.1:\d+\/_\/signin\//);
  const signedIn = await https('GET', new URL(link).pathname, {});
  assert.equal(signedIn.status, 303);
  const cookie = [signedIn.headers['set-cookie']].flat()[0] as string;
  assert.match(cookie, /; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/);
  const session = cookie.split(';')[0]!;
  const plain = svc.url.replace('https:', 'http:');
  const refused = await https('POST', '/_/api/exec', { Cookie: session, Origin: plain }, 'whoami');
  assert.equal(refused.status, 403);
  const ok = await https('POST', '/_/api/exec', { Cookie: session, Origin: svc.url }, 'whoami');
  assert.equal(ok.status, 200, ok.body);
});
