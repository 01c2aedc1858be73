// A descriptor `exectl serve` inherited open across exec (no FD_CLOEXEC) from whoever started
// it would pass on to every process the server starts: every VM's init and every command in
// it. Node and the libraries the server uses open everything close-on-exec, so at start the
// server closes each descriptor above 2 that is not, but Node's own IPC channel. (The library's
// startServer runs in its caller's process, whose descriptors are the caller's to keep.)
import { closeSync, readdirSync, readFileSync } from 'node:fs';

const O_CLOEXEC = 0o2000000;

/** Closes the inherited descriptors; returns their numbers. */
export function closeInheritedDescriptors(env: Readonly<Record<string, string | undefined>>) {
  const keep = new Set([0, 1, 2, Number(env.NODE_CHANNEL_FD ?? -1)]);
  const closed: number[] = [];
  for (const name of readdirSync('/proc/self/fd')) {
    const fd = Number(name);
    if (keep.has(fd)) continue;
    const flags = /^flags:\s+([0-7]+)$/m.exec(readFdInfo(fd))?.[1];
    if (flags === undefined || (parseInt(flags, 8) & O_CLOEXEC) !== 0) continue;
    try {
      closeSync(fd);
      closed.push(fd);
    } catch {
      // Gone already (the directory listing's own descriptor, say).
    }
  }
  return closed;
}

function readFdInfo(fd: number): string {
  try {
    return readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
  } catch {
    return '';
  }
}
