// Files named on the `exectl serve` command line: a file that cannot be read is a usage error
// naming the flag, not a crash.
import { readFile } from 'node:fs/promises';
import { ExectlError } from '../../errors.js';

/** The bytes of `path`, given with `flag`. */
export async function readUserFile(path: string, flag: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new ExectlError('usage', `${flag} ${path} cannot be read (${code})`, {
      hint: 'check the path and its permissions',
    });
  }
}

/** The text (UTF-8) of `path`, given with `flag`. */
export async function readUserText(path: string, flag: string): Promise<string> {
  return (await readUserFile(path, flag)).toString('utf8');
}
