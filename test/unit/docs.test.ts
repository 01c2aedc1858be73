// A fresh clone has every document the code and the docs cite: each `SPEC §N` in src/ and
// test/ names a section of docs/spec.md, each `docs/….md` path and each relative link of the
// README, docs/ and the man pages names a file that exists, and no document users read names
// an internal work item.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path, suffix);
    return path.endsWith(suffix) ? [path] : [];
  });
}

const sources = [...filesUnder('src', '.ts'), ...filesUnder('test', '.ts')];
const documents = ['README.md', ...filesUnder('docs', '.md')];
const manPages = filesUnder('man', '.1');

/** The section numbers docs/spec.md has: `## 4a. Images` gives 4a, `### 1.3 …` gives 1.3. */
export function specSections(spec: string): Set<string> {
  const found = new Set<string>();
  for (const m of spec.matchAll(/^#{2,3} (\d+[a-z]?(?:\.\d+)?)\.? /gm)) found.add(m[1]!);
  return found;
}

/** Every `SPEC §N` a text cites, as N. */
export function specCitations(text: string): string[] {
  return [...text.matchAll(/SPEC §(\d+[a-z]?(?:\.\d+)?)/g)].map((m) => m[1]!);
}

test('the section parser reads headings of both levels, with and without a final dot', () => {
  assert.deepEqual(
    [...specSections('## 1. Tokens\n### 1.3 Permissions JSON\n## 4a. Images\ntext ## 9.\n')],
    ['1', '1.3', '4a'],
  );
  assert.deepEqual(specCitations('see SPEC §6a and SPEC §1.3, not SPEC.md'), ['6a', '1.3']);
});

test('every SPEC § cited in src/ and test/ is a section of docs/spec.md', () => {
  const sections = specSections(readFileSync('docs/spec.md', 'utf8'));
  const missing = sources.flatMap((file) =>
    specCitations(readFileSync(file, 'utf8'))
      .filter((n) => !sections.has(n))
      .map((n) => `${file}: SPEC §${n}`),
  );
  assert.deepEqual(missing, []);
});

test('every docs/….md path named in the code, the docs and the man pages exists', () => {
  const missing = [...sources, ...documents, ...manPages].flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/\bdocs\/[\w/-]+\.md\b/g)]
      .map((m) => m[0])
      .filter((path) => !existsSync(path))
      .map((path) => `${file}: ${path}`),
  );
  assert.deepEqual(missing, []);
});

test('every relative link of the README and docs/ names a file that exists', () => {
  const missing = documents.flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
      .map((m) => m[1]!)
      .filter((target) => !/^[a-z]+:/.test(target))
      .filter((target) => !existsSync(normalize(join(dirname(file), target))))
      .map((target) => `${file}: ${target}`),
  );
  assert.deepEqual(missing, []);
});

test('no document users read names an internal work item or a folder outside the clone', () => {
  const found = [...documents, ...manPages].flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => /\bissues? \d+\b|\.\.\/shared\//i.test(line))
      .map((line) => `${file}: ${line.trim()}`),
  );
  assert.deepEqual(found, []);
});
