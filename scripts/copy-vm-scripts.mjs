#!/usr/bin/env node
// Copies vm/'s host scripts (src/service/vm/scripts/*.sh, *.pl, *.nft, *.cjs) where the built code reads them:
// beside the module that loads them in dist/ (tsc copies no such file), and beside the CLI
// bundle's chunks, the loader's place once bundled. Runs after bundle-cli.mjs, which empties
// dist/bundle/.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// The build folder: dist/, or the folder scripts/build.mjs builds into before swapping it in.
const DIST = process.env.EXECTL_BUILD_DIR ?? 'dist';

const FROM = 'src/service/vm/scripts';
const names = readdirSync(FROM).filter((name) => /\.(sh|pl|nft|cjs)$/.test(name));
for (const to of [`${DIST}/service/vm/scripts`, `${DIST}/bundle`]) {
  mkdirSync(to, { recursive: true });
  for (const name of names) copyFileSync(join(FROM, name), join(to, name));
}
