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
  assert.deepEqual(pkg.bin, { exectl: 'bin/exectl.js' });
  assert.equal(pkg.type, 'module');
  assert.equal(pkg.engines.node, '>=20');
});
