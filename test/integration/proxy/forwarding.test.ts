// The VM proxy of SPEC §6 end to end: servers really running inside VMs (python's http.server
// and echo-server.mjs), reached with real curl at `http://<vm>.localhost:<port>/`, with VM
// tokens made by the SPEC §1.1 shell recipe (real ssh-keygen).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { run } from '../../helpers/keys.js';
import {
  curl,
  echoOf,
  FAR,
  headerBytes,
  headerText,
  startProxyFixture,
  withToken,
  type ProxyFixture,
} from './fixture.js';

describe('VM proxy: forwarding to the VM server (SPEC §6)', () => {
  let f: ProxyFixture;
  let token: string;
  before(async () => {
    f = await startProxyFixture();
    await f.createVm('vm1');
    await f.startEchoServer('vm1');
    token = await f.vmToken('vm1');
  });
  after(() => f.stop());

  test('python -m http.server started in a VM is reached at http://vm1.localhost:PORT/', async () => {
    const port = await f.createVm('web');
    await f.runInVm(
      'web',
      `printf 'hello from web\\n' > "$HOME/hello.txt" && ` +
        `(setsid nohup python3 -m http.server ${port} --bind 127.0.0.1 ` +
        `> "$HOME/http.log" 2>&1 < /dev/null &)`,
    );
    await f.waitForPort(port, 'http.log', 'web');
    const webToken = await f.vmToken('web');

    const r = await curl(f.vmUrl('web', '/hello.txt'), withToken(webToken));
    assert.equal(r.status, 200, r.body);
    assert.equal(r.body, 'hello from web\n');
    // The same through an explicit Host header on the listener's own address.
    const byHost = await curl(`${f.svc.url}/hello.txt`, [
      ...withToken(webToken),
      '-H',
      `Host: web.localhost:${f.port}`,
    ]);
    assert.equal(byHost.status, 200);
    assert.equal(byHost.body, 'hello from web\n');
  });

  test('large bodies stream both ways, byte for byte', async () => {
    const port = await f.createVm('files');
    const made = await f.runInVm(
      'files',
      `head -c 5000000 /dev/urandom > "$HOME/big.bin" && sha256sum "$HOME/big.bin" && ` +
        `(setsid nohup python3 -m http.server ${port} --bind 127.0.0.1 ` +
        `> "$HOME/http.log" 2>&1 < /dev/null &)`,
    );
    await f.waitForPort(port, 'http.log', 'files');
    const download = f.svc.dir.join('downloaded.bin');
    const got = await run('curl', [
      '-sS',
      '-f',
      '-o',
      download,
      ...withToken(await f.vmToken('files')),
      f.vmUrl('files', '/big.bin'),
    ]);
    assert.equal(got.code, 0, got.stderr);
    const downloaded = await readFile(download);
    assert.equal(downloaded.length, 5_000_000);
    assert.equal(createHash('sha256').update(downloaded).digest('hex'), made.split(' ')[0]);

    // Upload: curl announces the 5 MB body with Expect: 100-continue, answered once let in.
    const upload = Buffer.alloc(5_000_000, 'exectl ');
    const uploadPath = f.svc.dir.join('upload.bin');
    await writeFile(uploadPath, upload);
    const echo = echoOf(
      await curl(f.vmUrl('vm1', '/upload'), [
        ...withToken(token),
        '--data-binary',
        `@${uploadPath}`,
      ]),
    );
    assert.equal(echo.method, 'POST');
    assert.equal(echo.bodyBytes, upload.length);
    assert.equal(echo.bodySha256, createHash('sha256').update(upload).digest('hex'));
    assert.equal(headerText(echo.rawHeaders, 'expect'), undefined);
  });

  test('the VM server learns who calls, from where, and nothing forged or secret', async () => {
    const r = await curl(f.vmUrl('vm1', '/path/x?q=1&r=%20'), [
      ...withToken(token),
      '-H',
      'X-Exectl-Email: mallory@example.com',
      '-H',
      'X-Exectl-User-Id: usr_FORGED',
      '-H',
      'X-Exectl-Token-Ctx: {"role":"admin"}',
      '-H',
      'X-Exectl-Anything: forged',
      '-H',
      'x-exectl-email: again@example.com',
      // `_` for `-`: servers such as Python's or Rack's read it as the same header.
      '-H',
      'X_Exectl_Email: underscored@example.com',
      '-H',
      'x-EXECTL_user-id: usr_MIXED',
      '-H',
      'X-Exectl_Token_Ctx: {"role":"root"}',
      '-H',
      'X-Forwarded-For: 6.6.6.6',
      '-H',
      'X-Forwarded-Host: evil.example',
      '-H',
      'X-Forwarded-Proto: https',
      '-H',
      'X_Forwarded_For: 7.7.7.7',
      '-H',
      'X-Custom: kept as is',
    ]);
    // The VM server's own status line, reason phrase and repeated headers come back.
    const echo = echoOf(r);
    assert.equal(r.headerList.filter(([name]) => name === 'set-cookie').length, 2);
    assert.deepEqual(
      r.headerList.filter(([name]) => name === 'set-cookie').map(([, value]) => value),
      ['a=1', 'b=2'],
    );
    assert.equal(echo.method, 'GET');
    assert.equal(echo.url, '/path/x?q=1&r=%20');

    const owner = f.svc.service.store.findAccountByEmail(f.svc.owner.email)!;
    const exectlHeaders = echo.rawHeaders.filter(
      (name, i) => i % 2 === 0 && /^x[-_]exectl[-_]/i.test(name),
    );
    // (X-Exectl-Hop: the proxy's own loop mark, never a client's.)
    assert.deepEqual(exectlHeaders.sort(), ['X-Exectl-Email', 'X-Exectl-Hop', 'X-Exectl-User-Id']);
    assert.match(headerText(echo.rawHeaders, 'x-exectl-hop') ?? '', /^[\w-]{16}$/);
    assert.equal(headerText(echo.rawHeaders, 'x-exectl-email'), 'owner@example.com');
    assert.equal(headerText(echo.rawHeaders, 'x-exectl-user-id'), owner.userId);
    assert.equal(headerText(echo.rawHeaders, 'x-forwarded-for'), '127.0.0.1');
    assert.ok(!echo.rawHeaders.includes('X_Forwarded_For'), 'X_Forwarded_For stays behind');
    assert.equal(headerText(echo.rawHeaders, 'x-forwarded-host'), `vm1.localhost:${f.port}`);
    assert.equal(headerText(echo.rawHeaders, 'x-forwarded-proto'), 'http');
    assert.equal(headerText(echo.rawHeaders, 'host'), `vm1.localhost:${f.port}`);
    assert.equal(headerText(echo.rawHeaders, 'x-custom'), 'kept as is');
    const everything = echo.rawHeaders.join('\n');
    assert.ok(!everything.includes(token.split('.')[2]!), 'the signature never reaches the VM');
    assert.ok(!everything.includes('svc0.'), 'no token reaches the VM');
  });

  test('X-Exectl-Token-Ctx carries the signed ctx bytes exactly', async () => {
    const rows: { name: string; raw: string; sent?: string }[] = [
      { name: 'unicode', raw: '"日本語 é 🎉 \u2028"' },
      { name: 'nested', raw: '{"a":[1,{"b":null,"c":[[[]]]}],"d":{"e":{"f":true}}}' },
      { name: 'escapes', raw: '"quote \\" backslash \\\\ \\u00e9 \\n \\t \\/"' },
      { name: 'inner whitespace', raw: '[ 1 ,\t2 , { "k" : "v" } ]' },
      { name: 'number', raw: '-1.5e+10' },
      { name: 'empty string', raw: '""' },
      { name: 'null', raw: 'null' },
      { name: 'html-ish', raw: '"<script>alert(1)</script> & ; , = %0d%0a"' },
      // DEL is valid raw JSON but no header may carry it: it arrives as its JSON escape.
      { name: 'DEL', raw: '"a\u007fb"', sent: '"a\\u007fb"' },
    ];
    for (const row of rows) {
      const ctxToken = await f.vmToken('vm1', `{"exp":${FAR},"ctx":${row.raw}}`);
      const echo = echoOf(await curl(f.vmUrl('vm1'), withToken(ctxToken)));
      assert.deepEqual(
        headerBytes(echo.rawHeaders, 'x-exectl-token-ctx'),
        [Buffer.from(row.sent ?? row.raw, 'utf8')],
        row.name,
      );
    }
    const noCtx = echoOf(await curl(f.vmUrl('vm1'), withToken(token)));
    assert.deepEqual(headerBytes(noCtx.rawHeaders, 'x-exectl-token-ctx'), []);
  });

  test('Authorization: Bearer works too and is not forwarded', async () => {
    const echo = echoOf(await curl(f.vmUrl('vm1'), ['-H', `Authorization: Bearer ${token}`]));
    assert.equal(headerText(echo.rawHeaders, 'authorization'), undefined);
    assert.equal(headerText(echo.rawHeaders, 'x-exectl-email'), 'owner@example.com');
  });

  test('an Authorization the token did not use is the VM app’s own and passes through', async () => {
    const echo = echoOf(
      await curl(f.vmUrl('vm1'), [...withToken(token), '-u', 'appuser:app-password']),
    );
    const basic = `Basic ${Buffer.from('appuser:app-password').toString('base64')}`;
    assert.equal(headerText(echo.rawHeaders, 'authorization'), basic);
  });

  test('routing: by Host label whatever the path or case; other hosts keep /exec', async () => {
    const upper = echoOf(await curl(`http://VM1.LocalHost:${f.port}/exec`, withToken(token)));
    assert.equal(upper.url, '/exec');
    const exec = await curl(`${f.svc.url}/exec`, ['--data-binary', 'whoami']);
    assert.equal(exec.status, 401);
    assert.deepEqual(JSON.parse(exec.body), { error: 'missing or invalid Authorization header' });
    for (const host of [`a.vm1.localhost:${f.port}`, `vm1.example.com:${f.port}`, 'localhost']) {
      const r = await curl(`${f.svc.url}/`, ['-H', `Host: ${host}`, ...withToken(token)]);
      assert.equal(r.status, 404, host);
      assert.deepEqual(JSON.parse(r.body), { error: 'not found' });
    }
  });

  test('502 when nothing listens on the VM port', async () => {
    const port = await f.createVm('silent');
    const r = await curl(f.vmUrl('silent'), withToken(await f.vmToken('silent')));
    assert.equal(r.status, 502);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(r.body), { error: `vm "silent" is not answering on port ${port}` });
    assert.match(
      f.svc.logs.at(-1)!,
      /req=\w+ via=proxy key=SHA256:\S+ cmd="GET silent" status=502 ms=[\d.]+ error="ECONNREFUSED"$/,
    );
  });

  test("a VM record naming one of exectl's own ports is never forwarded to", async () => {
    await f.createVm('loop');
    const vm = f.svc.service.store.getVmByName('loop')!;
    const reflectionPort = Number(new URL(f.svc.service.endpoints.reflection).port);
    f.svc.service.store.setDefaultPort(vm.id, reflectionPort);
    f.svc.service.store.setVisibility(vm.id, 'public');
    const r = await curl(f.vmUrl('loop'), []);
    assert.equal(r.status, 502);
    assert.deepEqual(JSON.parse(r.body), {
      error: `vm "loop" forwards to port ${reflectionPort}, one of exectl's own listeners`,
    });
  });

  test('one log line per proxied request, never the token', async () => {
    const before = f.svc.logs.length;
    await curl(f.vmUrl('vm1', '/logged?secret=x'), withToken(token));
    const lines = f.svc.logs.slice(before);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, / via=proxy key=SHA256:\S+ cmd="GET vm1" status=201 ms=/);
    assert.ok(!lines[0]!.includes('secret'), 'the URL is not logged');
    for (const line of f.svc.logs) assert.ok(!line.includes('svc0.'), line);
  });
});

describe('VM proxy: with the bwrap runtime (the proxy reaches into the VM’s own network)', () => {
  let f: ProxyFixture;
  before(async () => {
    f = await startProxyFixture({ runtime: 'bwrap' });
  });
  after(() => f.stop());

  test('a server inside a bwrap VM is reached through the proxy', async () => {
    assert.equal(f.svc.service.runtime.kind, 'bwrap');
    await f.createVm('boxed');
    await f.startEchoServer('boxed');
    const echo = echoOf(
      await curl(f.vmUrl('boxed', '/in-the-box'), withToken(await f.vmToken('boxed'))),
    );
    assert.equal(echo.url, '/in-the-box');
    assert.equal(headerText(echo.rawHeaders, 'x-exectl-email'), 'owner@example.com');
    // The next request comes on the same connection (as root, through the VM's relay socket).
    const again = echoOf(
      await curl(f.vmUrl('boxed', '/again'), withToken(await f.vmToken('boxed'))),
    );
    assert.equal(again.remotePort, echo.remotePort);
  });
});
