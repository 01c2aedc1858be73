#!/usr/bin/env node
// Thin shim: everything lives in the bundled CLI (built from src/cli by `npm run build`),
// whose main() owns the exit code. With EXECTL_DEBUG=1, stack traces name the TypeScript
// sources (source maps must be on before the bundle loads).
if (process.env.EXECTL_DEBUG === '1') process.setSourceMapsEnabled(true);
const { main } = await import('../dist/bundle/main.js');

process.exitCode = await main(process.argv.slice(2), process);
