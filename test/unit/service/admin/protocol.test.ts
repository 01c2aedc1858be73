// The admin socket's request parser (SPEC §7): exactly the fields of one operation, else one
// `usage` refusal; and the client's reading of an error answer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ExectlError } from '../../../../src/errors.js';
import {
  adminSocketPath,
  answerError,
  errorAnswer,
  parseAdminRequest,
} from '../../../../src/service/admin/protocol.js';

const ACCEPTED: [string, unknown][] = [
  ['{"op":"list"}', { op: 'list' }],
  ['{"op":"remove","email":"a@b.c"}', { op: 'remove', email: 'a@b.c' }],
  ['{"op":"add","email":"a@b.c","keys":[]}', { op: 'add', email: 'a@b.c', keys: [] }],
  ['{"op":"add","email":"a@b.c","keys":["k"]}', { op: 'add', email: 'a@b.c', keys: ['k'] }],
];

const REFUSED: [string, string][] = [
  ['', 'not JSON'],
  ['{"op":"list"', 'not JSON'],
  ['[]', 'not a JSON object'],
  ['null', 'not a JSON object'],
  ['"list"', 'not a JSON object'],
  ['{}', 'op must be "add", "list", "remove" or "mail"'],
  ['{"op":"LIST"}', 'op must be "add", "list", "remove" or "mail"'],
  ['{"op":"reset"}', 'op must be "add", "list", "remove" or "mail"'],
  ['{"op":"list","x":1}', 'unknown field "x"'],
  ['{"op":"remove"}', 'email must be a string'],
  ['{"op":"remove","email":1}', 'email must be a string'],
  ['{"op":"remove","email":"a@b.c","keys":[]}', 'unknown field "keys"'],
  ['{"op":"add","email":"a@b.c"}', 'keys must be a list of strings'],
  ['{"op":"add","email":"a@b.c","keys":"k"}', 'keys must be a list of strings'],
  ['{"op":"add","email":"a@b.c","keys":[1]}', 'keys must be a list of strings'],
  ['{"op":"add","keys":[]}', 'email must be a string'],
];

for (const [text, request] of ACCEPTED) {
  test(`accepted: ${text}`, () => assert.deepEqual(parseAdminRequest(text), request));
}

for (const [text, what] of REFUSED) {
  test(`refused: ${JSON.stringify(text)} (${what})`, () => {
    assert.throws(
      () => parseAdminRequest(text),
      (err: unknown) =>
        err instanceof ExectlError &&
        err.code === 'usage' &&
        err.message === `bad admin request: ${what}`,
    );
  });
}

test('any text is a request of exactly its fields or a usage refusal, nothing else', (t) => {
  const valid = fc.oneof(
    fc.constant({ op: 'list' }),
    fc.record({ op: fc.constant('remove'), email: fc.string() }),
    fc.record({ op: fc.constant('add'), email: fc.string(), keys: fc.array(fc.string()) }),
  );
  // A valid request with one field changed, dropped or added.
  const mutated = fc
    .tuple(valid, fc.constantFrom('op', 'email', 'keys', 'other'), fc.option(fc.jsonValue()))
    .map(([request, name, value]) => {
      const copy: Record<string, unknown> = { ...request };
      if (value === null) delete copy[name];
      else copy[name] = value;
      return copy;
    });
  const requestLike = fc.oneof(valid, mutated).map((r) => JSON.stringify(r));
  let accepted = 0;
  let runs = 0;
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.jsonValue().map((v) => JSON.stringify(v)),
        requestLike,
      ),
      (text) => {
        runs += 1;
        let request;
        try {
          request = parseAdminRequest(text);
        } catch (err) {
          assert.ok(err instanceof ExectlError && err.code === 'usage', String(err));
          return;
        }
        accepted += 1;
        // Accepted: the text held these fields and no other.
        assert.deepEqual(JSON.parse(text), request);
      },
    ),
    { numRuns: 2000 },
  );
  // The accepted branch must be exercised, not only the refusals.
  t.diagnostic(`${accepted} of ${runs} accepted`);
  assert.ok(accepted / runs > 0.15, `only ${accepted} of ${runs} accepted`);
});

test('an error answer comes back as the same error; a malformed one is a server error', () => {
  const sent = new ExectlError('command_failed', 'no account for "x@y.z"', { hint: 'see list' });
  const back = answerError((errorAnswer(sent) as { error: unknown }).error);
  assert.deepEqual(
    [back.code, back.message, back.hint, back.exitCode],
    ['command_failed', sent.message, 'see list', 1],
  );
  for (const bad of [
    undefined,
    null,
    'x',
    { code: 'nope', message: 'm' },
    { code: 'usage' },
    { code: 'usage', message: 'm', hint: 1 },
  ]) {
    assert.equal(answerError(bad).code, 'server_error');
  }
});

test('the socket path sits in the data folder, and only when a Unix socket can have it', () => {
  assert.equal(adminSocketPath('/srv/exectl'), '/srv/exectl/admin/admin.sock');
  const longest = `/${'d'.repeat(107 - '/admin/admin.sock'.length - 1)}`;
  assert.equal(adminSocketPath(longest), `${longest}/admin/admin.sock`);
  assert.equal(adminSocketPath(`${longest}d`), undefined);
});
