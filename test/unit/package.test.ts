// The package as npm sees it: what it installs and how it runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  man: string[];
  bin: Record<string, string>;
  engines: { node: string };
  type: string;
};

test('package.json "man" lists exactly the pages in man/', () => {
  const pages = readdirSync('man')
    .filter((f) => f.endsWith('.1'))
    .map((f) => `man/${f}`);
  assert.deepEqual([...pkg.man].sort(), pages.sort());
});

test('one binary, an ES module package, Node 20 or newer', () => {
  assert.deepEqual(pkg.bin, { exectl: 'bin/exectl.cjs' });
  assert.equal(pkg.type, 'module');
  assert.equal(pkg.engines.node, '>=20');
});

test('the library: exports and types point at the built index, beside the bin', () => {
  const { exports, types } = JSON.parse(readFileSync('package.json', 'utf8')) as {
    exports: unknown;
    types: string;
  };
  assert.deepEqual(exports, {
    '.': { types: './dist/index.d.ts', import: './dist/index.js' },
    './package.json': './package.json',
  });
  assert.equal(types, 'dist/index.d.ts');
});

test('src/index.ts only re-exports', () => {
  const statements = readFileSync('src/index.ts', 'utf8')
    .replace(/^\/\/.*$/gm, '')
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const statement of statements) {
    assert.match(statement, /^export (type )?\{[^}]*\} from '\.\/[\w/.-]+\.js'$/s, statement);
  }
});

test('docs/library.md quotes test/e2e/library-example.test.ts whole', () => {
  const doc = readFileSync('docs/library.md', 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.equal(block, readFileSync('test/e2e/library-example.test.ts', 'utf8'));
});
