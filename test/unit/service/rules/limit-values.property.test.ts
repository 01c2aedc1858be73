// Properties of the parsers of limit values, which read untrusted `resize` flags: for ANY text
// they answer null or a value within their rule, and a size written with a unit means that
// many of the unit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { MAX_CPUS, parseCpus, parseSize } from '../../../../src/service/rules/limit-values.js';
import { BranchShare } from '../../../helpers/branch-share.js';

const anyText = fc.oneof(fc.string(), fc.stringMatching(/^[0-9.KMGTiBkmgtb ]{0,24}$/));

test('parseSize: any text gives null or a positive safe integer', () => {
  fc.assert(
    fc.property(anyText, (text) => {
      const bytes = parseSize(text);
      assert.ok(bytes === null || (Number.isSafeInteger(bytes) && bytes >= 1), text);
    }),
  );
});

test('parseSize: N with a unit is N times the unit (powers of 1024, any case, i and B allowed), null past 2^53', () => {
  const units = { '': 1, K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 } as const;
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 2 ** 20 }),
      fc.constantFrom(...(Object.keys(units) as (keyof typeof units)[])),
      fc.constantFrom('', 'i', 'B', 'iB'),
      fc.boolean(),
      (n, unit, suffix, lower) => {
        const word = `${n}${lower ? unit.toLowerCase() : unit}${unit === '' ? '' : suffix}`;
        const bytes = n * units[unit];
        assert.equal(parseSize(word), Number.isSafeInteger(bytes) ? bytes : null);
      },
    ),
  );
});

/** CPU counts written as a person would (in range or not), and any text. */
const cpuLike = fc.oneof(
  fc.integer({ min: 0, max: MAX_CPUS + 2 }).map(String),
  fc
    .tuple(fc.nat(MAX_CPUS + 1), fc.stringMatching(/^[0-9]{1,2}$/))
    .map(([whole, fraction]) => `${whole}.${fraction}`),
  anyText,
);

test('parseCpus: any text gives null or a number from 0.01 to the maximum, two decimals at most', (t) => {
  const share = new BranchShare();
  fc.assert(
    fc.property(cpuLike, (text) => {
      const cpus = parseCpus(text);
      if (cpus === null) return share.refused();
      share.accepted();
      assert.ok(cpus >= 0.01 && cpus <= MAX_CPUS, text);
      assert.equal(Math.round(cpus * 100) / 100, cpus);
    }),
  );
  share.assertFloor((message) => t.diagnostic(message));
});
