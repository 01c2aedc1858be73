// The token form's "Expires in" (SPEC §11): only what the session can grant, a default that
// works, and messages in the page's words.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { expiryChoices, formMessage } from '../../../src/ui/expiry-choices.js';
import { parseDuration } from '../../../src/durations.js';

const HOUR = 3600;

test('the choices and the default, by how long the session token has left', () => {
  const table: [left: number | null, values: string[], selected: string][] = [
    [null, ['1h', '1d', '7d', '30d', '1y', 'never'], '30d'],
    [12 * HOUR, ['1h', '718m'], '718m'],
    [HOUR + 60, ['59m'], '59m'],
    [40 * 86_400, ['1h', '1d', '7d', '30d'], '30d'],
    [2 * 86_400, ['1h', '1d', '2878m'], '2878m'],
    [100, [], ''],
  ];
  for (const [left, values, selected] of table) {
    const got = expiryChoices(left);
    assert.deepEqual(
      [got.choices.map((c) => c.value), got.selected],
      [values, selected],
      `left ${left}`,
    );
  }
  assert.equal(expiryChoices(12 * HOUR).choices[1]!.label, 'until this session ends (11h 58m)');
});

test('property: every choice ends before the session token does, and the default is one', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 3 * 365 * 86_400 }), (left) => {
      const { choices, selected } = expiryChoices(left);
      for (const c of choices) assert.ok(parseDuration(c.value)! < left, `${c.value} < ${left}`);
      if (choices.length > 0) assert.ok(choices.some((c) => c.value === selected));
    }),
  );
});

test("the server's messages name the page's fields, not the command's flags", () => {
  const table: [string, string][] = [
    [
      '--exp "30d" ends after this request\'s token expires (2026-01-01T00:05:00Z): use a shorter --exp, or a token that lives longer',
      '"Expires in" "30d" ends after this session expires (2026-01-01T00:05:00Z): choose a shorter "Expires in"',
    ],
    ['unknown command in --cmds: "lss"', 'unknown command in "Commands": "lss"'],
    ['empty entry in --cmds', 'empty entry in "Commands"'],
  ];
  for (const [server, page] of table) assert.equal(formMessage(server), page);
});
