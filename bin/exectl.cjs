#!/usr/bin/env node
// Thin shim: everything lives in the bundled CLI (built from src/cli by `npm run build`),
// whose main() owns the exit code. CommonJS, as the bundle is: Node starts it faster than an
// ES module. With EXECTL_DEBUG=1, stack traces name the TypeScript sources (source maps must
// be on before the bundle loads).
'use strict';
if (process.env.EXECTL_DEBUG === '1') process.setSourceMapsEnabled(true);
const { main } = require('../dist/bundle/main.cjs');

// Exit as soon as main() is done and its output is out: main awaits everything it starts, and
// letting Node wind its event loop down runs a garbage collection it scheduled, 3 to 5 ms of
// every command (bench/cli-startup.bench.ts). A pipe takes writes asynchronously, though:
// while a slow reader leaves output waiting in a stream's buffer, Node ends the process once
// that is written (test/e2e/ssh.test.ts, "a slow reader").
main(process.argv.slice(2), process).then((code) => {
  process.exitCode = code;
  const waiting = [process.stdout, process.stderr].some((stream) => stream.writableLength > 0);
  if (!waiting) process.exit();
});
