// The mounts of /proc/self/mountinfo, as far as finding cgroup hierarchies needs them.

export interface Mount {
  point: string;
  fstype: string;
  /** The super options: a v1 hierarchy's controllers. */
  options: string[];
}

/** Parses mountinfo text (proc(5)): `... mount-point ... - fstype source super-options`. */
export function parseMountinfo(text: string): Mount[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [left = '', right = ''] = line.split(' - ');
      const [fstype = '', , options = ''] = right.split(' ');
      return { point: left.split(' ')[4] ?? '', fstype, options: options.split(',') };
    });
}
