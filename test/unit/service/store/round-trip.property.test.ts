// Whatever text a user manages to send (comments, env values, tags, emails, glob patterns),
// the store gives back exactly what it was given and never fails on it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Account } from '../../../../src/service/store/index.js';
import { openFixture, type StoreFixture } from '../../../helpers/store.js';

let f: StoreFixture;
let owner: Account;
before(async () => {
  f = await openFixture();
  owner = f.store.createAccount('owner@x.io');
});
after(() => f.cleanup());

// Any Unicode text, NUL and astral characters included.
const text = fc.string({ unit: 'binary', maxLength: 40 });

/** SQLite's BINARY collation orders by UTF-8 bytes, which differs from JS string order. */
const utf8Sorted = (values: string[]) =>
  [...new Set(values)].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

let counter = 0;

test('a VM’s text fields round-trip exactly', () => {
  fc.assert(
    fc.property(
      text,
      fc.option(text, { nil: null }),
      fc.dictionary(text, text, { maxKeys: 5 }),
      fc.array(text, { maxLength: 6 }),
      (comment, setupScript, env, tags) => {
        const name = `prop-${++counter}`;
        const created = f.store.createVm({
          accountId: owner.id,
          name,
          emoji: '🧪',
          status: 'running',
          comment,
          setupScript,
          env,
          tags,
        });
        try {
          const read = f.store.getVmByName(name)!;
          assert.deepEqual(read, created);
          assert.deepEqual(
            [read.comment, read.setupScript, read.env, read.tags],
            [comment, setupScript, { ...env }, utf8Sorted(tags)],
          );
        } finally {
          f.store.deleteVm(created.id);
        }
      },
    ),
    { numRuns: 150 },
  );
});

test('any glob pattern is answered; one without wildcards matches names and tags exactly', () => {
  const web = f.store.createVm({
    accountId: owner.id,
    name: 'web',
    emoji: 'w',
    status: 'running',
    tags: ['prod', 'eu'],
  });
  try {
    fc.assert(
      fc.property(text, (pattern) => {
        const found = f.store.listVmsVisibleTo(owner.id, pattern).map((vm) => vm.name);
        if (!/[*?[]/.test(pattern)) {
          const literal = ['web', 'prod', 'eu'].includes(pattern);
          assert.deepEqual(found, literal ? ['web'] : []);
        }
      }),
      { numRuns: 300 },
    );
  } finally {
    f.store.deleteVm(web.id);
  }
});

test('any email round-trips and is found again, ASCII letters in any case', () => {
  fc.assert(
    fc.property(text, (local) => {
      const email = `${local}@${++counter}.example`;
      const account = f.store.createAccount(email);
      assert.equal(account.email, email);
      assert.deepEqual(f.store.findAccountByEmail(email), account);
      const asciiCaseFlipped = email.replace(/[a-z]/gi, (c) =>
        c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase(),
      );
      assert.deepEqual(f.store.findAccountByEmail(asciiCaseFlipped), account);
      f.store.removeAccount(account.id);
    }),
    { numRuns: 100 },
  );
});
