// The built CLI (dist/bundle, made by scripts/bundle-cli.mjs) must not load sshpk when it
// starts, nor when `inspect` or `mint` runs: sshpk sits in a chunk required only when a
// dynamic import() of the source runs, taken for encrypted, PEM and PKCS#8 keys. Read from the
// bundle's own graph of top-level require() calls, so a change that pulls sshpk in eagerly
// fails here.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const BUNDLE = join(import.meta.dirname, '..', '..', 'dist', 'bundle');
const chunks = readdirSync(BUNDLE).filter((f) => f.endsWith('.cjs'));
const text = (file: string): string => readFileSync(join(BUNDLE, file), 'utf8');

/** The require() of a chunk that runs only when a dynamic import() of the source does. */
const LAZY_REQUIRE =
  /Promise\.resolve\(\)\.then\(\(\)\s*=>\s*__toESM\(require\("\.\/([^"]+)"\)\)\)/g;

/** Every chunk `entry` loads before running: all its other requires, transitively. */
function staticClosure(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const eager = text(file).replace(LAZY_REQUIRE, '');
    for (const m of eager.matchAll(/require\("\.\/([^"]+)"\)/g)) visit(m[1]!);
  };
  visit(entry);
  return seen;
}

const commandChunk = (name: string): string => {
  const found = chunks.find((f) => f.startsWith(`${name}-`));
  assert.ok(found !== undefined, `no ${name} chunk in dist/bundle`);
  return found;
};

const sshpkChunks = chunks.filter((f) => text(f).includes('node_modules/sshpk/lib/'));

test('the bundle holds sshpk, in chunks of its own', () => {
  assert.ok(sshpkChunks.length > 0, 'sshpk is bundled (the check can see it)');
  // The dynamic import that reaches it, from the token library's sshpk reader.
  const lazilyRequired = chunks.flatMap((f) =>
    [...text(f).matchAll(LAZY_REQUIRE)].map((m) => m[1]),
  );
  assert.ok(sshpkChunks.some((c) => lazilyRequired.includes(c)));
});

// Every TAB runs `exectl __complete`, which declares every command (their chunks load) and
// answers from the completion chunk: none of them may pull sshpk in.
for (const entry of [
  'main.cjs',
  commandChunk('inspect'),
  commandChunk('mint'),
  ...['completion', 'ssh', 'auth', 'reflect', 'serve', 'profile'].map(commandChunk),
]) {
  test(`${entry.replace(/-\w+\.cjs$/, '')} loads no sshpk chunk statically`, () => {
    const loaded = staticClosure(entry);
    assert.ok(loaded.size > 1, `the requires of ${entry} are read`);
    assert.deepEqual(
      sshpkChunks.filter((c) => loaded.has(c)),
      [],
    );
  });
}
