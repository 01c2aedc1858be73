// Writing a file of the user's all at once or not at all, readable by its owner only: the
// client's config file, ssh config and known hosts. A reader must never meet half a file.
import { randomBytes } from 'node:crypto';
import { mkdir, open, realpath, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ExectlError } from '../errors.js';
import { fsCause } from '../fs-cause.js';

/**
 * Replaces the file at `path` with `text`, mode 0600 whatever the umask: written to a
 * temporary file in the same folder (made 0700 when missing), flushed, then renamed over the
 * old one. A `path` that is a symbolic link (a dotfiles folder) keeps being one: its target is
 * replaced. `what` names the file in the error, e.g. `the config file`.
 *
 * @throws ExectlError `usage` when it cannot be written, naming the folder to check.
 */
export async function writeWholeFile(path: string, text: string, what: string): Promise<void> {
  const target = await linkTarget(path);
  const folder = dirname(target);
  const temp = join(folder, `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const file = await open(temp, 'wx', 0o600);
    try {
      await file.chmod(0o600);
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, target);
  } catch (err) {
    await rm(temp, { force: true });
    throw new ExectlError('usage', `cannot write ${what} ${path}: ${fsCause(err)}`, {
      hint: `check the permissions of ${folder}`,
    });
  }
}

/** Where a write to `path` lands: the file a symbolic link points at, else `path` itself. */
async function linkTarget(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return path; // no file yet (or a dangling link, replaced by a file)
  }
}
