#!/usr/bin/env node
// Thin shim: everything lives in dist/cli/main.js, which owns the exit code.
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2), process);
