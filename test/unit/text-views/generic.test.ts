import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderJson } from '../../../src/service/dispatch/render.js';
import { renderText } from '../../../src/text-views/generic.js';

test('renderJson is compact JSON and a newline', () => {
  assert.equal(renderJson({ a: [1, 'x'], b: null }), '{"a":[1,"x"],"b":null}\n');
  assert.equal(renderJson('é🚀'), '"é🚀"\n');
});

const VMS = {
  vms: [
    { vm_name: 'web', status: 'running', tags: ['prod', 'eu'], comment: null },
    { vm_name: 'database', status: 'stopped', tags: [], comment: 'main db' },
  ],
};

const TEXT: [name: string, data: unknown, text: string][] = [
  [
    'a record holding one list of records prints just the table',
    VMS,
    [
      'VM_NAME   STATUS   TAGS      COMMENT',
      'web       running  prod, eu  -',
      'database  stopped            main db',
      '',
    ].join('\n'),
  ],
  ['an empty list says so', { vms: [] }, 'no vms\n'],
  [
    'a record prints key: value lines, lists joined, records nested',
    { vm_name: 'web', tags: ['a', 'b'], port: 8000, public: false, team: { name: 't', n: 2 } },
    'vm_name: web\ntags: a, b\nport: 8000\npublic: false\nteam:\n  name: t\n  n: 2\n',
  ],
  [
    'a list of records inside a record is an indented table',
    { deleted: ['a'], failed: [{ vm_name: 'b', error: 'vm "b" not found' }] },
    'deleted: a\nfailed:\n  VM_NAME  ERROR\n  b        vm "b" not found\n',
  ],
  ['records of mixed keys share the union of columns', [{ a: 1 }, { b: 2 }], 'A  B\n1  -\n-  2\n'],
  ['a bare value prints as is', 'hello', 'hello\n'],
  ['nested lists print as JSON', { m: [[1, 2]] }, 'm: [[1,2]]\n'],
];

test('renderText without a renderer of its own is a readable generic form', () => {
  for (const [name, data, text] of TEXT) assert.equal(renderText(data), text, name);
});

test('renderText escapes control characters from data so they cannot drive a terminal', () => {
  assert.equal(
    renderText({ comment: 'red\u001b[31m\nbell\u0007\ttab\u009b' }),
    'comment: red\\u001b[31m\\nbell\\u0007\\ttab\\u009b\n',
  );
  assert.equal(renderText({ ['k\u001b']: 1 }), 'k\\u001b: 1\n');
});

test('a command renderer is used as is, keeping its newlines and tabs, escaping the rest', () => {
  const custom = (data: unknown) => `name:\t${(data as { name: string }).name}\ndone`;
  assert.equal(renderText({ name: 'x\u001by' }, custom), 'name:\tx\\u001by\ndone\n');
});
