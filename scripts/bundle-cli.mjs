#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/main.js) into dist/bundle/ as CommonJS chunks for
// bin/exectl.cjs: each command a chunk of its own, loaded only when it runs, and the code they
// share in chunks of their own. CommonJS because Node starts it faster than ES modules: the
// ES module loader alone costs several milliseconds, and so does node:fs/promises, which it
// always loads (bench/cli-startup.bench.ts measures it).
//
// esbuild splits only ES module output, so this takes two passes: pass 1 bundles and splits
// as ES modules into a scratch folder; pass 2 turns each chunk into a CommonJS file (static
// imports become require() at the top, dynamic import() a require() when it runs), chaining
// the source maps so that EXECTL_DEBUG=1 stack traces still name the TypeScript sources.
// Native or optional-native packages stay external and load from node_modules.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

// The build folder: dist/, or the folder scripts/build.mjs builds into before swapping it in.
const DIST = process.env.EXECTL_BUILD_DIR ?? 'dist';

const OUT = `${DIST}/bundle`;

/**
 * commander requires node:child_process as it loads, only to start executable subcommands,
 * which exectl has none of; loading it (node:dgram and more with it) cost every start about
 * 1.5 ms. Here commander gets an object that loads the module at first use instead.
 */
const commanderLoadsChildProcessWhenUsed = {
  name: 'commander-loads-child-process-when-used',
  setup(build) {
    build.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.importer.includes('/node_modules/commander/')
        ? { path: 'child_process', namespace: 'commander-child-process' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'commander-child-process' }, () => ({
      contents:
        "module.exports = new Proxy({}, { get: (_, name) => require('node:child_process')[name] });",
      loader: 'js',
    }));
  },
};

const scratch = mkdtempSync(join(tmpdir(), 'exectl-bundle-'));
try {
  const split = await build({
    entryPoints: [`${DIST}/cli/main.js`],
    outdir: scratch,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    external: ['better-sqlite3', 'ssh2', 'cpu-features'],
    plugins: [commanderLoadsChildProcessWhenUsed],
    write: false,
    logLevel: 'warning',
  });
  const chunks = [];
  for (const file of split.outputFiles) {
    // import.meta does not exist in CommonJS. import.meta.dirname becomes __dirname (below);
    // import.meta.url becomes a call of a function declared in every chunk, so that the URL
    // is built only where it is used.
    const text = file.path.endsWith('.cjs')
      ? file.text.replaceAll('import.meta.url', '__exectlModuleUrl()')
      : file.text;
    writeFileSync(file.path, text);
    if (file.path.endsWith('.cjs')) chunks.push(file.path);
  }
  assertNoCycles(chunks);

  // Chunk names carry content hashes: clear the old ones so none linger.
  rmSync(OUT, { recursive: true, force: true });
  await build({
    entryPoints: chunks,
    outdir: OUT,
    outExtension: { '.js': '.cjs' },
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    // import() of a chunk becomes require(): a CommonJS file loaded by the CommonJS loader.
    supported: { 'dynamic-import': false },
    define: { 'import.meta.dirname': '__dirname' },
    // Less text for V8 to parse at every start (bench/cli-startup: inspect went from 1.18-1.28
    // to 1.12-1.15 of node + commander); names are kept, and the source maps still point into
    // the TypeScript.
    minifyWhitespace: true,
    minifySyntax: true,
    // Strict mode, as the ES modules had, and the function import.meta.url became (above).
    banner: {
      js: '"use strict";\nfunction __exectlModuleUrl() { return require("node:url").pathToFileURL(__filename).href; }',
    },
    // sshpk's own code has one (harmless) `!x instanceof Array`; it is not ours to change.
    logOverride: { 'suspicious-boolean-not': 'silent' },
    logLevel: 'warning',
  });
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

/**
 * A CommonJS require() cycle hands one side a half-made module where ES modules would have
 * linked both first; esbuild's chunks form none today, and the build stops if one appears.
 */
function assertNoCycles(files) {
  const staticImports = new Map(
    files.map((path) => [
      path.slice(path.lastIndexOf('/') + 1),
      [...readFileSync(path, 'utf8').matchAll(/^import\s*(?:[^;'"]*?from\s*)?"\.\/([^"]+)"/gm)].map(
        (m) => m[1],
      ),
    ]),
  );
  const done = new Set();
  const visit = (name, path) => {
    if (path.includes(name)) {
      throw new Error(
        `bundle-cli: chunks import each other in a cycle: ${[...path, name].join(' → ')}`,
      );
    }
    if (done.has(name)) return;
    for (const next of staticImports.get(name) ?? []) visit(next, [...path, name]);
    done.add(name);
  };
  for (const name of staticImports.keys()) visit(name, []);
}
