#!/usr/bin/env node
// Thin shim: everything lives in the bundled CLI (built from src/cli by `npm run build`),
// whose main() owns the exit code. CommonJS, as the bundle is: Node starts it faster than an
// ES module. With EXECTL_DEBUG=1, stack traces name the TypeScript sources (source maps must
// be on before the bundle loads).
'use strict';
if (process.env.EXECTL_DEBUG === '1') process.setSourceMapsEnabled(true);
const { main } = require('../dist/bundle/main.cjs');

// Exit as soon as main() is done: it awaits everything it starts, and on Linux every write to
// stdout and stderr (file, pipe or terminal) is synchronous, so nothing is left to flush.
// Letting Node wind its event loop down instead runs a garbage collection it scheduled, 3 to 5
// ms of every command (bench/cli-startup.bench.ts).
main(process.argv.slice(2), process).then((code) => process.exit(code));
