import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { VmRecord } from '../../../../src/service/store/index.js';
import { T0, openFixture, type StoreFixture } from '../../../helpers/store.js';

let f: StoreFixture;
let web: VmRecord;
before(async () => {
  f = await openFixture();
  const ada = f.store.createAccount('ada@x.io');
  web = f.store.createVm({ accountId: ada.id, name: 'web', emoji: '🐳', status: 'running' });
});
after(() => f.cleanup());

test('addShare records the email (no account needed) and listShares lists oldest first', () => {
  assert.deepEqual(f.store.addShare(web.id, 'Zed@x.io'), {
    vmId: web.id,
    email: 'Zed@x.io',
    addedAt: T0,
  });
  f.clock.advance(5);
  f.store.addShare(web.id, 'amy@x.io');
  assert.deepEqual(f.store.listShares(web.id), [
    { vmId: web.id, email: 'Zed@x.io', addedAt: T0 },
    { vmId: web.id, email: 'amy@x.io', addedAt: '2025-03-01T12:00:05Z' },
  ]);
});

test('refuses to share twice with the same email, whatever its case', () => {
  assert.throws(() => f.store.addShare(web.id, 'zed@X.IO'), {
    kind: 'duplicate',
    message: 'vm "web" is already shared with zed@X.IO',
  });
});

test('removeShare matches the email case-insensitively and refuses an absent share', () => {
  f.store.removeShare(web.id, 'ZED@x.io');
  assert.deepEqual(
    f.store.listShares(web.id).map((s) => s.email),
    ['amy@x.io'],
  );
  assert.throws(() => f.store.removeShare(web.id, 'zed@x.io'), {
    kind: 'not_found',
    message: 'share not found: vm "web" is not shared with zed@x.io',
  });
});

test('a VM that no longer exists is a not_found conflict', () => {
  assert.throws(() => f.store.addShare(9999, 'a@x.io'), {
    kind: 'not_found',
    message: 'vm no longer exists',
  });
  assert.throws(() => f.store.removeShare(9999, 'a@x.io'), {
    kind: 'not_found',
    message: 'vm no longer exists',
  });
  assert.deepEqual(f.store.listShares(9999), []);
});
