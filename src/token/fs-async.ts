// The key files are read through callback node:fs, not node:fs/promises: loading that module
// loads Node's readline and file-watching modules with it, a few milliseconds of every
// `exectl mint` (bench/cli-startup.bench.ts).
import { readFile, stat } from 'node:fs';
import { promisify } from 'node:util';

export const readFileAsync = promisify(readFile);
export const statAsync = promisify(stat);
