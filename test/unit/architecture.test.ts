// Keeps the rooms of ../shared/ARCHITECTURE.md true by reading the source as text: who may
// import whom, and which room alone may touch SQL, child processes, env/argv and exit codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, resolve } from 'node:path';

const SRC = resolve('src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const files = sourceFiles(SRC).map((abs) => ({
  rel: relative(SRC, abs),
  text: readFileSync(abs, 'utf8'),
}));

/** Every module specifier a file imports (static and dynamic), resolved relative to src/. */
function imports(file: { rel: string; text: string }): string[] {
  const specs = [
    ...file.text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"`]*?from\s*['"]([^'"]+)['"]/g),
    ...file.text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...file.text.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g),
  ].map((m) => m[1]!);
  return specs.map((s) =>
    s.startsWith('.') ? relative(SRC, resolve(SRC, dirname(file.rel), s)) : s,
  );
}

function room(rel: string): string {
  return rel.split('/')[0]!;
}

test('src/ has source files to check', () => {
  assert.ok(files.length > 0);
});

test('token/ imports nothing from cli/ or service/', () => {
  for (const f of files.filter((f) => room(f.rel) === 'token')) {
    for (const spec of imports(f)) {
      assert.ok(!/^(cli|service)\//.test(spec), `${f.rel} imports ${spec}`);
    }
  }
});

test('service/ never imports cli/', () => {
  for (const f of files.filter((f) => room(f.rel) === 'service')) {
    for (const spec of imports(f)) assert.ok(!spec.startsWith('cli/'), `${f.rel} imports ${spec}`);
  }
});

test('cli/ reaches service/ only from cli/commands/serve*.ts', () => {
  for (const f of files.filter((f) => room(f.rel) === 'cli')) {
    if (/^cli\/commands\/serve[\w-]*\.ts$/.test(f.rel)) continue;
    for (const spec of imports(f)) {
      assert.ok(!spec.startsWith('service/'), `${f.rel} imports ${spec}`);
    }
  }
});

test('only service/store/ imports better-sqlite3', () => {
  for (const f of files) {
    if (f.rel.startsWith('service/store/')) continue;
    assert.ok(!imports(f).includes('better-sqlite3'), `${f.rel} imports better-sqlite3`);
  }
});

// The client may ask a local tool (e.g. `git config user.email` for serve's default owner);
// inside the service, only vm/ starts processes.
test('only service/vm/ (and the client) spawn processes', () => {
  for (const f of files) {
    if (f.rel.startsWith('service/vm/') || room(f.rel) === 'cli') continue;
    const spawning = imports(f).filter((s) => s === 'node:child_process' || s === 'child_process');
    assert.deepEqual(spawning, [], `${f.rel} imports child_process`);
  }
});

test('only cli/ reads process.env or process.argv', () => {
  for (const f of files) {
    if (room(f.rel) === 'cli') continue;
    assert.ok(!/process\.(env|argv)\b/.test(f.text), `${f.rel} reads process.env/argv`);
  }
});

test('only cli/main.ts decides the exit code', () => {
  for (const f of files) {
    if (f.rel === 'cli/main.ts') continue;
    assert.ok(!/process\.(exit|exitCode)\b/.test(f.text), `${f.rel} sets the exit code`);
  }
});
