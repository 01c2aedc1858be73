// JSON for a terminal: the layout of JSON.stringify(v, null, 2), the exact scalar text the
// server sent, colours per token kind, and control characters made harmless.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { prettyJson, type JsonStyle } from '../../../src/cli/json-pretty.js';

const TAGGED: JsonStyle = {
  key: (t) => `<k>${t}</k>`,
  string: (t) => `<s>${t}</s>`,
  number: (t) => `<n>${t}</n>`,
  literal: (t) => `<l>${t}</l>`,
};

test('prettyJson: layout', () => {
  const cases: [string, string][] = [
    ['{}\n', '{}\n'],
    ['[]', '[]\n'],
    [
      '{"a":1,"b":[true,null,{}],"c":{"d":"x"}}\n',
      '{\n  "a": 1,\n  "b": [\n    true,\n    null,\n    {}\n  ],\n  "c": {\n    "d": "x"\n  }\n}\n',
    ],
    ['  "just a string"  ', '"just a string"\n'],
    [
      '{"big":12345678901234567890123,"f":1.50e+3}',
      '{\n  "big": 12345678901234567890123,\n  "f": 1.50e+3\n}\n',
    ],
    ['{"s":"a\\"b\\\\c, [d]: {e}"}', '{\n  "s": "a\\"b\\\\c, [d]: {e}"\n}\n'],
  ];
  for (const [text, pretty] of cases) assert.equal(prettyJson(text), pretty, text);
});

test('prettyJson: colours keys, strings, numbers and literals apart', () => {
  assert.equal(
    prettyJson('{"vm_name":"web","port":8000,"public":false,"tags":[null]}', TAGGED),
    '{\n  <k>"vm_name"</k>: <s>"web"</s>,\n  <k>"port"</k>: <n>8000</n>,\n  <k>"public"</k>: <l>false</l>,\n  <k>"tags"</k>: [\n    <l>null</l>\n  ]\n}\n',
  );
});

test('prettyJson: bidi overrides and DEL inside strings are shown escaped, still valid JSON', () => {
  const text = JSON.stringify({ comment: 'evil\u202eexe\u007f' });
  const pretty = prettyJson(text)!;
  assert.equal(pretty, '{\n  "comment": "evil\\u202eexe\\u007f"\n}\n');
  assert.deepEqual(JSON.parse(pretty), { comment: 'evil\u202eexe\u007f' });
});

test('prettyJson: not JSON gives undefined', () => {
  for (const text of ['', '{', 'hello', '{"a":1}{"b":2}', '[1,]']) {
    assert.equal(prettyJson(text), undefined, text);
  }
});

test('property: same layout as JSON.stringify(v, null, 2) and the same value back', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const compact = JSON.stringify(value);
      const pretty = prettyJson(`${compact}\n`);
      assert.ok(pretty !== undefined);
      assert.deepEqual(JSON.parse(pretty), JSON.parse(compact));
      if (!/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(compact)) {
        assert.equal(pretty, `${JSON.stringify(value, null, 2)}\n`);
      }
    }),
    { numRuns: 500 },
  );
});
