#!/usr/bin/env node
// Bundles the dashboard's browser code (src/ui/) into dist/ui/: one script, one stylesheet
// (xterm.js's own included) and the page, served by src/service/dashboard/assets.ts. Nothing
// is fetched from a CDN or anywhere else at run time.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

// The build folder: dist/, or the folder scripts/build.mjs builds into before swapping it in.
const DIST = process.env.EXECTL_BUILD_DIR ?? 'dist';

const OUT = `${DIST}/ui`;
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
await build({
  entryPoints: { app: 'src/ui/main.ts' },
  outdir: OUT,
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['chrome110', 'firefox115', 'safari16'],
  minify: true,
  tsconfig: 'src/ui/tsconfig.json',
  logLevel: 'warning',
});
await build({
  entryPoints: { app: 'src/ui/app.css' },
  outdir: OUT,
  bundle: true,
  minify: true,
  logLevel: 'warning',
});
copyFileSync('src/ui/index.html', `${OUT}/index.html`);
