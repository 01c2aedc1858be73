/**
 * Why a file-system call failed, in words a user reads in a one-line error: the errno code's
 * meaning followed by the code itself, e.g. `permission denied (EACCES)`.
 */
export function fsCause(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === undefined) return err instanceof Error ? err.message : String(err);
  const words = MEANINGS[code];
  return words === undefined ? code : `${words} (${code})`;
}

const MEANINGS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'it is a folder',
  EEXIST: 'it already exists',
  ELOOP: 'too many symbolic links',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EIO: 'input/output error',
  ENAMETOOLONG: 'the name is too long',
};
