#!/usr/bin/env node
// Thin shim: everything lives in the bundled CLI (built from src/cli by `npm run build`),
// whose main() owns the exit code. CommonJS, as the bundle is: Node starts it faster than an
// ES module. With EXECTL_DEBUG=1, stack traces name the TypeScript sources (source maps must
// be on before the bundle loads).
'use strict';
if (process.env.EXECTL_DEBUG === '1') process.setSourceMapsEnabled(true);
const { main } = require('../dist/bundle/main.cjs');

main(process.argv.slice(2), process).then((code) => {
  process.exitCode = code;
});
