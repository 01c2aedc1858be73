// Which targets are one of exectl's own listeners (SPEC §6), whatever the private-target rule
// says: a listener port at loopback, unspecified, the listener's own address, or, for a
// listener on a wildcard address, at any address of the host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExectlError } from '../../../../src/errors.js';
import { refuseOwnListener } from '../../../../src/service/integrations/loop.js';

const HOST = ['127.0.0.1', '192.0.2.2', 'fd00::2'];

interface Listen {
  http: string;
  sshHost?: string;
}

function isOwn(target: string, addresses: string[], listen: Listen): boolean {
  const endpoints = {
    http: listen.http,
    reflection: 'http://127.0.0.1:7071',
    ssh: { host: listen.sshHost ?? '127.0.0.1', port: 7022 },
  };
  try {
    refuseOwnListener(new URL(target), addresses, endpoints, HOST);
    return false;
  } catch (error) {
    assert.ok(error instanceof ExectlError && error.status === 422, String(error));
    assert.match(error.message, /: it is one of exectl's own listeners$/);
    return true;
  }
}

test("refuseOwnListener: a listener's port at an address that reaches it", () => {
  const loopback: Listen = { http: 'http://127.0.0.1:7070' };
  const wildcard: Listen = { http: 'http://0.0.0.0:7070' };
  const cases: [target: string, addresses: string[], listen: Listen, own: boolean][] = [
    ['http://127.0.0.1:7070', ['127.0.0.1'], loopback, true],
    ['http://127.0.0.9:7071', ['127.0.0.9'], loopback, true],
    ['http://[::1]:7022', ['::1'], loopback, true],
    ['http://0.0.0.0:7070', ['0.0.0.0'], loopback, true],
    ['http://name:7070', ['198.51.100.7', '127.0.0.1'], loopback, true],
    ['http://127.0.0.1:7073', ['127.0.0.1'], loopback, false],
    // The host's LAN address reaches a wildcard listener, not a loopback one.
    ['http://192.0.2.2:7070', ['192.0.2.2'], wildcard, true],
    ['http://[fd00::2]:7070', ['fd00::2'], { http: 'http://[::]:7070' }, true],
    ['http://192.0.2.2:7070', ['192.0.2.2'], loopback, false],
    ['http://192.0.2.9:7022', ['192.0.2.9'], { http: '', sshHost: '192.0.2.9' }, true],
    ['http://198.51.100.7:7070', ['198.51.100.7'], wildcard, false],
  ];
  for (const [target, addresses, listen, own] of cases) {
    assert.equal(isOwn(target, addresses, listen), own, `${target} with ${listen.http}`);
  }
});
