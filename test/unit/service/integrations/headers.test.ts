// Which headers cross the integration proxy: hop-by-hop ones never do, configured ones are
// added and replace the VM's of the same name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  downstreamResponseHeaders,
  splitHeaderLine,
  upstreamRequestHeaders,
} from '../../../../src/service/integrations/headers.js';

test('splitHeaderLine: lower-case name, value without surrounding blanks', () => {
  const cases: [line: string, name: string, value: string][] = [
    ['Authorization: Bearer x', 'authorization', 'Bearer x'],
    ['X-A:b', 'x-a', 'b'],
    ['X-A: \t b c \t', 'x-a', 'b c'],
    ['X-A:', 'x-a', ''],
    ['X-A: a:b', 'x-a', 'a:b'],
  ];
  for (const [line, name, value] of cases) {
    assert.deepEqual(splitHeaderLine(line), { name, value }, line);
  }
});

test('upstream: end-to-end headers of the VM, Host of the target, configured ones added', () => {
  const fromVm = {
    host: ['127.0.0.1:7071'],
    connection: ['keep-alive, X-Drop-Me'],
    'keep-alive': ['timeout=5'],
    'x-drop-me': ['1'],
    'transfer-encoding': ['chunked'],
    te: ['trailers'],
    upgrade: ['websocket'],
    'proxy-authorization': ['Basic eA=='],
    expect: ['100-continue'],
    'content-type': ['application/json'],
    authorization: ['Bearer from-the-vm'],
    accept: ['a', 'b'],
    'x-org': ['vm-org'],
  };
  const configured = ['Authorization: Bearer secret', 'X-Extra: 1', 'x-extra: 2'];
  assert.deepEqual(upstreamRequestHeaders(fromVm, configured, 'api.example.com'), {
    'content-type': ['application/json'],
    accept: ['a', 'b'],
    'x-org': ['vm-org'],
    host: 'api.example.com',
    authorization: ['Bearer secret'],
    'x-extra': ['1', '2'],
  });
});

test('downstream: the target end-to-end headers only', () => {
  assert.deepEqual(
    downstreamResponseHeaders({
      'content-type': ['text/plain'],
      'set-cookie': ['a=1', 'b=2'],
      connection: ['close, X-Hop'],
      'x-hop': ['1'],
      'transfer-encoding': ['chunked'],
      'keep-alive': ['timeout=5'],
      'proxy-authenticate': ['Basic'],
      trailer: ['X-T'],
    }),
    { 'content-type': ['text/plain'], 'set-cookie': ['a=1', 'b=2'] },
  );
});
