// The dashboard's static files: the page, its script and its styles, bundled at build time
// (scripts/bundle-ui.mjs) into dist/ui/ and served from memory. They hold no account data,
// so they answer without a session; nothing is fetched from anywhere else at run time.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One file as served. */
export interface Asset {
  type: string;
  body: Buffer;
}

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/** The files, by their path under `/_/`: `''` is the page itself. */
const NAMES: Record<string, string> = {
  '': 'index.html',
  'app.js': 'app.js',
  'app.css': 'app.css',
};

// Where dist/ui/ lies from this module: beside the CLI bundle's chunks (dist/bundle/), from
// dist/service/dashboard/ as tsc built it, and from src/service/dashboard/ under tsx (tests).
const PLACES = ['../ui/', '../../ui/', '../../../dist/ui/'];

let cached: Map<string, Asset> | undefined;

/** The asset at `path` under `/_/` (`''`, `app.js`, `app.css`), or undefined. */
export function assetAt(path: string): Asset | undefined {
  cached ??= loadAssets();
  return cached.get(path);
}

function loadAssets(): Map<string, Asset> {
  const dir = PLACES.map((p) => new URL(p, import.meta.url)).find((url) =>
    existsSync(fileURLToPath(new URL('app.js', url))),
  );
  const assets = new Map<string, Asset>();
  // Not built (`npm run build` makes it): the page is missing, the rest of the server works.
  if (dir === undefined) return assets;
  for (const [path, name] of Object.entries(NAMES)) {
    const type = TYPES[name.slice(name.lastIndexOf('.') + 1)]!;
    assets.set(path, { type, body: readFileSync(new URL(name, dir)) });
  }
  return assets;
}
