// `new`'s image flags (SPEC §4a): `--image REF`, `--command auto|none|CMD`, `--registry-auth
// USER:PASS`. Checked before the VM's record is stored, so a bad one leaves nothing.
import { commandFailed } from '../../errors.js';
import type { FlagSpec } from '../dispatch/types.js';
import type { FlagValues } from '../dispatch/flag-values.js';
import { BadReference, parseReference } from '../rules/image-reference.js';
import type { VmImage } from '../store/index.js';

/** The flags, as `new` declares them. */
export const IMAGE_FLAGS: FlagSpec[] = [
  {
    name: 'image',
    type: 'string',
    description:
      'OCI image to boot instead of the default system (ubuntu:22.04, host:port/name:tag)',
  },
  {
    name: 'command',
    type: 'string',
    description:
      "With --image: auto (the image's Entrypoint and Cmd, the default), none, or a shell command, run at every boot",
  },
  {
    name: 'registry-auth',
    type: 'string',
    description: "With --image: USER:PASS for the image's registry (never stored)",
  },
];

/** The image of a new VM and the pull's credentials, from `new`'s flags. */
export interface NewVmImage {
  image: VmImage | null;
  credentials: { user: string; password: string } | null;
}

/**
 * @throws 422 for a reference that is not one, or `--command`/`--registry-auth` without
 * `--image`, or a `--registry-auth` without its colon.
 */
export function imageFlags(flags: FlagValues): NewVmImage {
  const reference = flags.string('image');
  const command = flags.string('command');
  const auth = flags.string('registry-auth');
  if (reference === undefined) {
    if (command !== undefined || auth !== undefined) {
      throw commandFailed('--command and --registry-auth go with --image', {
        hint: 'add --image REF, or leave them out',
      });
    }
    return { image: null, credentials: null };
  }
  try {
    parseReference(reference);
  } catch (err) {
    if (!(err instanceof BadReference)) throw err;
    throw commandFailed(`--image "${reference}" is not an image reference: ${err.message}`, {
      hint: 'give name[:tag] or host[:port]/name[:tag], e.g. ubuntu:22.04',
    });
  }
  if (command === '') throw commandFailed('--command is empty: give auto, none or a command');
  return {
    image: { reference, digest: null, command: command ?? 'auto' },
    credentials: auth === undefined ? null : credentialsOf(auth),
  };
}

function credentialsOf(value: string): { user: string; password: string } {
  const colon = value.indexOf(':');
  if (colon <= 0 || colon === value.length - 1) {
    // The value itself stays out of the message: it is a password.
    throw commandFailed('--registry-auth is not USER:PASS', {
      hint: 'give --registry-auth USER:PASS',
    });
  }
  return { user: value.slice(0, colon), password: value.slice(colon + 1) };
}
