// Properties of the parsers of limit values, which read untrusted `resize` flags: for ANY text
// they answer null or a value within their rule, and a size written with a unit means that
// many of the unit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { MAX_CPUS, parseCpus, parseSize } from '../../../../src/service/rules/limit-values.js';

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

test('parseCpus: any text gives null or a number from 0.01 to the maximum, two decimals at most', () => {
  fc.assert(
    fc.property(anyText, (text) => {
      const cpus = parseCpus(text);
      if (cpus === null) return;
      assert.ok(cpus >= 0.01 && cpus <= MAX_CPUS, text);
      assert.equal(Math.round(cpus * 100) / 100, cpus);
    }),
  );
});
