import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  editDistance,
  maxTypoDistance,
  parseSuggestions,
  suggestionsFor,
  suggestionsHeader,
  withSuggestions,
} from '../../src/did-you-mean.js';

const COMMANDS = ['help', 'ls', 'new', 'rm', 'run', 'restart', 'ssh-key', 'whoami', 'integrations'];

const cases: [typed: string, expected: string[], why: string][] = [
  ['lss', ['ls'], 'one extra letter'],
  ['whoam', ['whoami'], 'one missing letter'],
  ['wohami', ['whoami'], 'two neighbours swapped count as one edit'],
  ['rn', ['rm', 'run'], 'a tie lists every nearest name, in the given order'],
  ['resatrt', ['restart'], 'a swap within the 2 edits a 7-letter word allows'],
  ['intgrations', ['integrations'], 'long words allow more edits'],
  ['intgratoins', ['integrations'], '2 edits in an 11-letter word'],
  ['ls', [], 'the input is itself a command: nothing to correct'],
  ['x', [], 'one letter is never a typo of anything'],
  ['lx', ['ls'], 'a 2-letter word allows one edit'],
  ['frobnicate', [], 'far words get no suggestion'],
  ['rmm', ['rm'], 'the nearest wins over a farther one'],
  ['', [], 'nothing typed'],
];

test('suggestionsFor: thresholds, ties, far words', () => {
  for (const [typed, expected, why] of cases) {
    assert.deepEqual(suggestionsFor(typed, COMMANDS), expected, `${typed}: ${why}`);
  }
});

test('maxTypoDistance: 1 up to 4 letters, 2 up to 8, then 3; always below the length', () => {
  const table: [number, number][] = [
    [0, -1],
    [1, 0],
    [2, 1],
    [4, 1],
    [5, 2],
    [8, 2],
    [9, 3],
    [40, 3],
  ];
  for (const [length, max] of table) assert.equal(maxTypoDistance(length), max, `length ${length}`);
});

test('editDistance: insert, delete, substitute, swap', () => {
  const table: [string, string, number][] = [
    ['', '', 0],
    ['', 'ls', 2],
    ['ls', 'lss', 1],
    ['rn', 'rm', 1],
    ['ab', 'ba', 1],
    ['kitten', 'sitting', 3],
    ['ssh-key', 'ssh-kye', 1],
  ];
  for (const [a, b, d] of table) {
    assert.equal(editDistance(a, b), d, `${a} ~ ${b}`);
    assert.equal(editDistance(b, a), d, `${b} ~ ${a}`);
  }
});

test('withSuggestions words the suggestion after the message', () => {
  assert.equal(
    withSuggestions('unknown command: lss', ['ls']),
    'unknown command: lss — did you mean "ls"?',
  );
  assert.equal(
    withSuggestions('unknown command: rn', ['rm', 'run']),
    'unknown command: rn — did you mean "rm" or "run"?',
  );
  assert.equal(withSuggestions('unknown command: zzz', []), 'unknown command: zzz');
});

test('suggestionsHeader carries paths in X-Exec-Suggest; parseSuggestions reads them back', () => {
  assert.deepEqual(suggestionsHeader(['rm', 'ssh-key list']), {
    'X-Exec-Suggest': 'rm, ssh-key list',
  });
  assert.deepEqual(suggestionsHeader([]), {});
  // What a header cannot hold is left out, never sent.
  assert.deepEqual(suggestionsHeader(['é', 'a,b', 'a"b']), {});
  assert.deepEqual(parseSuggestions('rm, ssh-key list'), ['rm', 'ssh-key list']);
  assert.deepEqual(parseSuggestions(undefined), []);
  assert.deepEqual(parseSuggestions('rm, "x"'), []);
  assert.deepEqual(parseSuggestions('rm,\x1b[31m'), []);
});

const word = fc.string({ unit: fc.constantFrom('a', 'b', 'l', 's', '-', 'é'), maxLength: 10 });

/** A one-letter change of a word (a letter inserted or dropped), or none. */
const nearMiss = fc.option(
  fc.oneof(
    fc.nat(12).map((at) => (w: string) => w.slice(0, at) + 'l' + w.slice(at)),
    fc.nat(12).map((at) => (w: string) => w.slice(0, at) + w.slice(at + 1)),
  ),
  { nil: undefined },
);

test('property: a suggestion is never the input, never past the threshold, always the nearest', () => {
  let suggested = 0;
  let runs = 0;
  fc.assert(
    fc.property(word, fc.array(word, { maxLength: 8 }), nearMiss, (typed, others, miss) => {
      runs += 1;
      // Half the lists hold a one-letter change of the input, so suggestions come up often.
      const candidates = miss === undefined ? others : [...others, miss(typed)];
      const got = suggestionsFor(typed, candidates);
      // A name that is a command needs no correction, whatever else is near it.
      if (candidates.includes(typed)) assert.deepEqual(got, []);
      if (got.length > 0) suggested += 1;
      const nearest = Math.min(...candidates.map((c) => editDistance(typed, c)));
      for (const name of got) {
        assert.ok(candidates.includes(name));
        assert.notEqual(name, typed);
        assert.ok(editDistance(typed, name) <= maxTypoDistance(typed.length));
        assert.equal(editDistance(typed, name), nearest);
      }
      if (got.length === 0 && !candidates.includes(typed)) {
        assert.ok(!(nearest <= maxTypoDistance(typed.length)), 'a close name was missed');
      }
      const header = suggestionsHeader(got)['X-Exec-Suggest'];
      assert.deepEqual(
        parseSuggestions(header),
        got.filter((name) => /^[\x21-\x7e]+$/.test(name)),
      );
    }),
    { numRuns: 2000 },
  );
  // The branch with suggestions must be exercised, not only the empty one.
  assert.ok(suggested / runs > 0.1, `only ${suggested} of ${runs} cases had a suggestion`);
});
