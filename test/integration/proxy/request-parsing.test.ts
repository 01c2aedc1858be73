// The proxy's readers of untrusted request data, without sockets: the Host → VM label rule,
// where the credential comes from, and which headers cross the proxy. Tables, then fast-check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import fc from 'fast-check';
import { proxyCredential } from '../../../src/service/proxy/proxy-credential.js';
import { headersFromVm, headersToVm } from '../../../src/service/proxy/proxy-headers.js';
import { vmLabelFromHost } from '../../../src/service/proxy/proxy-host.js';
import { BranchShare } from '../../helpers/branch-share.js';
import { dialectsFor } from '../../../src/dialects.js';

/** exectl's own names only (a server without `--compat`), and with the real service's. */
const OWN = dialectsFor(null);
const EXE_DEV = dialectsFor('exe.dev');

test('vmLabelFromHost: <label>.<domain>[:port], nothing else', () => {
  const rows: [string | undefined, string, string | null][] = [
    ['vm1.localhost', 'localhost', 'vm1'],
    ['vm1.localhost:7070', 'localhost', 'vm1'],
    ['VM1.LocalHost:7070', 'localhost', 'vm1'],
    ['vm1.localhost.:7070', 'localhost', 'vm1'],
    ['vm1.localhost:', 'localhost', 'vm1'],
    ['x.localhost', 'localhost', 'x'],
    [`${'a'.repeat(63)}.localhost`, 'localhost', 'a'.repeat(63)],
    ['web.example.com:443', 'example.com', 'web'],
    ['web.EXAMPLE.com', 'Example.Com', 'web'],
    [`${'a'.repeat(64)}.localhost`, 'localhost', null],
    ['localhost:7070', 'localhost', null],
    ['127.0.0.1:7070', 'localhost', null],
    ['[::1]:7070', 'localhost', null],
    ['a.vm1.localhost', 'localhost', null],
    ['.localhost', 'localhost', null],
    ['-vm.localhost', 'localhost', null],
    ['vm-.localhost', 'localhost', null],
    ['vm_1.localhost', 'localhost', null],
    ['vm1.localhostx', 'localhost', null],
    ['vm1xlocalhost', 'localhost', null],
    ['vm1.localhost:abc', 'localhost', null],
    ['web.localhost', 'example.com', null],
    ['', 'localhost', null],
    [undefined, 'localhost', null],
  ];
  for (const [host, domain, label] of rows) {
    assert.equal(vmLabelFromHost(host, domain), label, `${host} on ${domain}`);
  }
});

const hostLike = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.oneof(
          fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/),
          fc.stringMatching(/^[a-zA-Z0-9-]{1,64}$/),
        ),
        fc.constantFrom('.localhost', '.localhost', '.LOCALHOST', '.localhost.', '.other', ''),
        fc.constantFrom('', '', ':7070', ':', ':99999', ':x'),
      )
      .map(([label, domain, port]) => `${label}${domain}${port}`),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 100 }) },
);

test('vmLabelFromHost: any host gives null or a DNS label the host starts with', (t) => {
  const share = new BranchShare();
  fc.assert(
    // Hosts shaped like a VM's (some with a bad label, port or domain) and any text: random
    // text alone is never a VM's host.
    fc.property(hostLike, (host) => {
      const label = vmLabelFromHost(host, 'localhost');
      if (label === null) return share.refused();
      share.accepted();
      assert.match(label, /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/);
      assert.ok(host.toLowerCase().startsWith(`${label}.`));
    }),
  );
  share.assertFloor((message) => t.diagnostic(message));
  const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/);
  fc.assert(
    fc.property(label, fc.option(fc.integer({ min: 0, max: 65535 })), (name, port) => {
      const host = `${name}.localhost${port === null ? '' : `:${port}`}`;
      assert.equal(vmLabelFromHost(host, 'localhost'), name);
    }),
  );
});

const basic = (userPass: string) => `Basic ${Buffer.from(userPass).toString('base64')}`;

test('proxyCredential: X-Exectl-Authorization, else Bearer, else the Basic password', () => {
  const T = 'svc0.e30.U1NIU0lH';
  const S = 'svc1.ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const rows: [Record<string, string>, { token: string | null; dropAuthorization: boolean }][] = [
    [{}, { token: null, dropAuthorization: false }],
    [{ 'x-exectl-authorization': `Bearer ${T}` }, { token: T, dropAuthorization: false }],
    [{ 'x-exectl-authorization': `bEaReR  ${S} ` }, { token: S, dropAuthorization: false }],
    // Whatever it holds goes to verification, which answers the precise 401.
    [{ 'x-exectl-authorization': 'Bearer junk' }, { token: 'junk', dropAuthorization: false }],
    [{ 'x-exectl-authorization': T }, { token: null, dropAuthorization: false }],
    [{ authorization: `Bearer ${T}` }, { token: T, dropAuthorization: true }],
    [{ authorization: basic(`git:${S}`) }, { token: S, dropAuthorization: true }],
    [{ authorization: basic(`:${T}`) }, { token: T, dropAuthorization: true }],
    [{ authorization: basic(`a:b:${T}`) }, { token: null, dropAuthorization: false }],
    // A token as the Basic user with no password (`https://$T@host`, git's habit) is consumed.
    [{ authorization: basic(T) }, { token: T, dropAuthorization: true }],
    [{ authorization: basic('user:password') }, { token: null, dropAuthorization: false }],
    [{ authorization: 'Bearer abc' }, { token: null, dropAuthorization: false }],
    [{ authorization: 'Basic !!!' }, { token: null, dropAuthorization: false }],
    [{ authorization: `Digest ${T}` }, { token: null, dropAuthorization: false }],
    // Both: the preferred header wins, and the token in Authorization still never reaches the VM.
    [
      { 'x-exectl-authorization': `Bearer ${S}`, authorization: `Bearer ${T}` },
      { token: S, dropAuthorization: true },
    ],
    [
      { 'x-exectl-authorization': 'nonsense', authorization: basic(`git:${T}`) },
      { token: null, dropAuthorization: true },
    ],
  ];
  for (const [headers, expected] of rows) {
    assert.deepEqual(proxyCredential(headers, OWN), expected, JSON.stringify(headers));
  }
});

test('proxyCredential: never throws; a token taken from Authorization is an exectl one', () => {
  const value = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.string().map((s) => `Bearer ${s}`),
    fc.string({ unit: 'binary' }).map(basic),
  );
  fc.assert(
    fc.property(fc.option(value), fc.option(value), (own, authorization) => {
      const headers: Record<string, string> = {};
      if (own !== null) headers['x-exectl-authorization'] = own;
      if (authorization !== null) headers.authorization = authorization;
      const credential = proxyCredential(headers, OWN);
      if (own === null && credential.token !== null) assert.match(credential.token, /^svc[01]\./);
      if (credential.dropAuthorization) assert.notEqual(authorization, null);
    }),
  );
  const token = fc.stringMatching(/^svc[01]\.[A-Za-z0-9._-]{1,40}$/);
  const user = fc.string({ unit: 'binary' }).filter((u) => !u.includes(':'));
  fc.assert(
    fc.property(token, user, (t, u) => {
      assert.deepEqual(proxyCredential({ authorization: basic(`${u}:${t}`) }, OWN), {
        token: t,
        dropAuthorization: true,
      });
    }),
  );
});

/** A request as headersToVm reads it: raw headers and the client's address. */
function incoming(rawHeaders: string[], encrypted = false): IncomingMessage {
  const headers: Record<string, string> = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    headers[rawHeaders[i]!.toLowerCase()] = rawHeaders[i + 1]!;
  }
  const socket = encrypted
    ? { remoteAddress: '10.0.0.7', encrypted: true }
    : { remoteAddress: '10.0.0.7' };
  return { rawHeaders, headers, socket } as unknown as IncomingMessage;
}

const FORWARDED = (proto: string) => [
  'X-Forwarded-For',
  '10.0.0.7',
  'X-Forwarded-Host',
  'vm1.localhost:7070',
  'X-Forwarded-Proto',
  proto,
  'X-Exectl-Hop',
  'mark',
];

test('headersToVm: hop-by-hop, proxy-only and secret headers stay behind', () => {
  // prettier-ignore
  const raw = [
    'Host', 'vm1.localhost:7070',
    'Connection', 'keep-alive, X-Private',
    'X-Private', 'per connection',
    'Keep-Alive', 'timeout=5',
    'Proxy-Authorization', 'Basic eDp5',
    'Proxy-Connection', 'keep-alive',
    'TE', 'trailers',
    'Trailer', 'X-Sum',
    'Transfer-Encoding', 'chunked',
    'Upgrade', 'h2c',
    'Expect', '100-continue',
    'Authorization', 'Bearer svc0.a.b',
    'X-Exectl-Authorization', 'Bearer svc0.a.b',
    'X-EXECTL-EMAIL', 'forged@example.com',
    'X-Forwarded-For', '6.6.6.6',
    'X-Forwarded-Host', 'evil.example',
    'X-Forwarded-Proto', 'https',
    'Forwarded', 'for=6.6.6.6',
    'Cookie', 'a=1',
    'Cookie', 'b=2',
    'content-length', '0',
  ];
  const visitor = null;
  // prettier-ignore
  const plain = [
    'Host', 'vm1.localhost:7070',
    'Cookie', 'a=1',
    'Cookie', 'b=2',
    'content-length', '0',
    ...FORWARDED('http'),
  ];
  assert.deepEqual(
    headersToVm(incoming(raw), {
      visitor,
      dropAuthorization: true,
      tunnel: false,
      dialects: OWN,
      loopMark: 'mark',
    }),
    plain,
  );
  // A tunnel keeps the connection's framing and its upgrade for the VM's server to answer.
  // prettier-ignore
  const tunnelled = [
    'Host', 'vm1.localhost:7070',
    'Connection', 'keep-alive, X-Private',
    'X-Private', 'per connection',
    'Keep-Alive', 'timeout=5',
    'Proxy-Connection', 'keep-alive',
    'TE', 'trailers',
    'Trailer', 'X-Sum',
    'Transfer-Encoding', 'chunked',
    'Upgrade', 'h2c',
    'Expect', '100-continue',
    'Authorization', 'Bearer svc0.a.b',
    'Cookie', 'a=1',
    'Cookie', 'b=2',
    'content-length', '0',
    ...FORWARDED('https'),
  ];
  assert.deepEqual(
    headersToVm(incoming(raw, true), {
      visitor,
      dropAuthorization: false,
      tunnel: true,
      dialects: OWN,
      loopMark: 'mark',
    }),
    tunnelled,
  );
});

test('headersToVm: a visitor is named, with the ctx bytes as UTF-8 on the wire', () => {
  const visitor = {
    principal: {
      accountId: 1,
      email: 'zoë@example.com',
      userId: 'usr_ABC',
      keyFingerprint: 'SHA256:x',
      cmds: [],
      tag: null,
      exp: null,
      via: 'token' as const,
    },
    account: { id: 1, userId: 'usr_ABC', email: 'zoë@example.com', createdAt: '', region: 'local' },
    permissions: { ctxRaw: '{"é":"\u007f"}' },
  };
  const headers = headersToVm(incoming(['Host', 'vm1.localhost:7070']), {
    visitor,
    dropAuthorization: false,
    tunnel: false,
    dialects: OWN,
    loopMark: 'mark',
  });
  // prettier-ignore
  assert.deepEqual(headers, [
    'Host', 'vm1.localhost:7070',
    'X-Exectl-Email', Buffer.from('zoë@example.com').toString('latin1'),
    'X-Exectl-User-Id', 'usr_ABC',
    'X-Exectl-Token-Ctx', Buffer.from('{"é":"\\u007f"}').toString('latin1'),
    ...FORWARDED('http'),
  ]);
});

test('headersFromVm: the answer keeps its headers but not the VM connection’s', () => {
  // prettier-ignore
  const raw = [
    'Content-Type', 'text/html',
    'Set-Cookie', 'a=1',
    'Set-Cookie', 'b=2',
    'Connection', 'keep-alive, X-Hop',
    'X-Hop', 'gone',
    'Keep-Alive', 'timeout=5',
    'Transfer-Encoding', 'chunked',
    'X-Exectl-Whatever', 'the VM may say what it likes',
  ];
  // prettier-ignore
  assert.deepEqual(headersFromVm(raw), [
    'Content-Type', 'text/html',
    'Set-Cookie', 'a=1',
    'Set-Cookie', 'b=2',
    'X-Exectl-Whatever', 'the VM may say what it likes',
  ]);
});

test('proxyCredential under --compat exe.dev: X-ExeDev-Authorization, and exe0./exe1. in Authorization', () => {
  const E = 'exe0.e30.U1NIU0lH';
  const F = 'exe1.ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const T = 'svc0.e30.U1NIU0lH';
  type Row = [
    Record<string, string>,
    readonly unknown[],
    { token: string | null; dropAuthorization: boolean },
  ];
  const rows: Row[] = [
    [{ 'x-exedev-authorization': `Bearer ${E}` }, EXE_DEV, { token: E, dropAuthorization: false }],
    [{ 'x-exedev-authorization': `Bearer ${T}` }, EXE_DEV, { token: T, dropAuthorization: false }],
    [{ authorization: `Bearer ${E}` }, EXE_DEV, { token: E, dropAuthorization: true }],
    [{ authorization: basic(`git:${F}`) }, EXE_DEV, { token: F, dropAuthorization: true }],
    // exectl's own header is preferred to the real service's.
    [
      { 'x-exectl-authorization': `Bearer ${T}`, 'x-exedev-authorization': `Bearer ${E}` },
      EXE_DEV,
      { token: T, dropAuthorization: false },
    ],
    // Without --compat none of it is a credential: the VM app's own Authorization passes on.
    [{ 'x-exedev-authorization': `Bearer ${E}` }, OWN, { token: null, dropAuthorization: false }],
    [{ authorization: `Bearer ${E}` }, OWN, { token: null, dropAuthorization: false }],
    [{ authorization: basic(`git:${F}`) }, OWN, { token: null, dropAuthorization: false }],
  ];
  for (const [headers, dialects, expected] of rows) {
    const got = proxyCredential(headers, dialects as typeof OWN);
    assert.deepEqual(got, expected, `${JSON.stringify(headers)} with ${dialects.length} dialects`);
  }
});

test('headersToVm: client-sent X-ExeDev-* (any spelling) never reach a VM, with or without --compat', () => {
  // prettier-ignore
  const raw = [
    'Host', 'vm1.exe.xyz',
    'X-ExeDev-Email', 'forged@example.com',
    'x_exedev_userid', 'usr_forged',
    'X-EXEDEV-TOKEN-CTX', '{"admin":true}',
    'X-ExeDev-Authorization', 'Bearer exe0.a.b',
    'X-Exe-Dev', 'not reserved: kept',
  ];
  // prettier-ignore
  const kept = [
    'Host', 'vm1.exe.xyz',
    'X-Exe-Dev', 'not reserved: kept',
    'X-Forwarded-For', '10.0.0.7',
    'X-Forwarded-Host', 'vm1.exe.xyz',
    'X-Forwarded-Proto', 'http',
    'X-Exectl-Hop', 'mark',
  ];
  for (const dialects of [OWN, EXE_DEV]) {
    const options = {
      visitor: null,
      dropAuthorization: false,
      tunnel: false,
      dialects,
      loopMark: 'mark',
    };
    assert.deepEqual(headersToVm(incoming(raw), options), kept);
  }
});

test('headersToVm under --compat exe.dev: the visitor is named in both sets of headers', () => {
  const visitor = {
    principal: {
      accountId: 1,
      email: 'ada@example.com',
      userId: 'usr_ABC',
      keyFingerprint: 'SHA256:x',
      cmds: [],
      tag: null,
      exp: null,
      via: 'token' as const,
    },
    account: { id: 1, userId: 'usr_ABC', email: 'ada@example.com', createdAt: '', region: 'local' },
    permissions: { ctxRaw: '{"app":1}' },
  };
  const headers = headersToVm(incoming(['Host', 'vm1.exe.xyz']), {
    visitor,
    dropAuthorization: false,
    tunnel: false,
    dialects: EXE_DEV,
    loopMark: 'mark',
  });
  // prettier-ignore
  assert.deepEqual(headers, [
    'Host', 'vm1.exe.xyz',
    'X-Exectl-Email', 'ada@example.com',
    'X-Exectl-User-Id', 'usr_ABC',
    'X-Exectl-Token-Ctx', '{"app":1}',
    'X-ExeDev-Email', 'ada@example.com',
    'X-ExeDev-UserID', 'usr_ABC',
    'X-ExeDev-Token-Ctx', '{"app":1}',
    'X-Forwarded-For', '10.0.0.7',
    'X-Forwarded-Host', 'vm1.exe.xyz',
    'X-Forwarded-Proto', 'http',
    'X-Exectl-Hop', 'mark',
  ]);
});
