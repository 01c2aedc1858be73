#!/usr/bin/env node
// Thin shim: everything lives in the bundled CLI (built from src/cli by `npm run build`),
// whose main() owns the exit code. CommonJS, as the bundle is: Node starts it faster than an
// ES module. With EXECTL_DEBUG=1, stack traces name the TypeScript sources (source maps must
// be on before the bundle loads).
'use strict';
if (process.env.EXECTL_DEBUG === '1') process.setSourceMapsEnabled(true);
const { main } = loadBundle();

// `npm run build` swaps a new build in with two renames (scripts/build.mjs): dist/ -> dist.old/,
// then dist.next/ -> dist/. Started in the instant between them, this finds the old build in
// dist.old/, or, if that is gone already, the new one in dist/.
function loadBundle() {
  const places = [
    '../dist/bundle/main.cjs',
    '../dist.old/bundle/main.cjs',
    '../dist/bundle/main.cjs',
  ];
  for (const [i, place] of places.entries()) {
    try {
      return require(place);
    } catch (err) {
      const missing = err.code === 'MODULE_NOT_FOUND' && err.message.includes(place.slice(3));
      if (!missing || i === places.length - 1) throw err;
    }
  }
}

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
