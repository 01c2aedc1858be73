// The registry side of a pull (SPEC §4a), by skopeo: the digest a reference names now, and a
// copy of that digest into an OCI layout of the server's. Credentials go to skopeo in an auth
// file of the pull's private folder, never on its command line (which every host user may
// read in /proc); with none given, an empty one, so no credential of the host's own is used.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HostToolError, runHost } from '../process/index.js';
import type { PullSource } from './registries.js';
import type { ImageReference } from '../../rules/image-reference.js';
import { pinnedTransportName, transportName } from '../../rules/image-reference.js';

/** The tools of a pull and an unpack. */
export interface ImageTools {
  skopeo: string;
  umoci: string;
}

/** One pull's private folder (0700, the server's): its auth file and its OCI layout. */
export interface PullFolder {
  readonly dir: string;
  readonly authFile: string;
  readonly layout: string;
}

/** How long asking a registry for a digest may take: the answer to `new` comes within 30 s. */
const INSPECT_TIMEOUT = '20s';

/** The tag of the one image in a pull's layout. */
export const LAYOUT_TAG = 'image';

/** A pull that failed: `reason` is skopeo's own reason, one line (no credential is in it). */
export class PullFailed extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'PullFailed';
  }
}

/** Writes the pull's auth file: `credentials` for `source.registry`, or none. */
export async function writeAuthFile(
  folder: PullFolder,
  source: PullSource,
  credentials: { user: string; password: string } | null,
): Promise<void> {
  const auths =
    credentials === null
      ? {}
      : {
          [source.registry]: {
            auth: Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64'),
          },
        };
  await writeFile(folder.authFile, JSON.stringify({ auths }), { mode: 0o600 });
}

/**
 * The manifest digest `ref` names on `source` now (`sha256:…`): the cache's key.
 *
 * @throws PullFailed with skopeo's reason (unreachable, unknown, unauthorized).
 */
export async function currentDigest(
  tools: ImageTools,
  folder: PullFolder,
  source: PullSource,
  ref: ImageReference,
  signal: AbortSignal,
): Promise<string> {
  const output = await skopeo(
    tools,
    folder,
    [
      '--command-timeout',
      INSPECT_TIMEOUT,
      'inspect',
      '--no-tags',
      '--retry-times',
      '0',
      '--format',
      '{{.Digest}}',
      `--tls-verify=${source.tlsVerify}`,
      '--authfile',
      folder.authFile,
      transportName(source.registry, ref),
    ],
    signal,
  );
  const digest = output.trim();
  if (!/^sha256:[a-f0-9]{64}$/.test(digest)) {
    throw new PullFailed(`the registry answered no manifest digest`);
  }
  return digest;
}

/**
 * Copies the image of `digest` into the pull's OCI layout (tag {@link LAYOUT_TAG}). skopeo
 * checks every blob against its digest.
 *
 * @throws PullFailed with skopeo's reason.
 */
export async function copyToLayout(
  tools: ImageTools,
  folder: PullFolder,
  source: PullSource,
  ref: ImageReference,
  digest: string,
  signal: AbortSignal,
): Promise<void> {
  await skopeo(
    tools,
    folder,
    [
      'copy',
      '--quiet',
      '--retry-times',
      '0',
      `--src-tls-verify=${source.tlsVerify}`,
      '--src-authfile',
      folder.authFile,
      pinnedTransportName(source.registry, ref, digest),
      `oci:${folder.layout}:${LAYOUT_TAG}`,
    ],
    signal,
  );
}

async function skopeo(
  tools: ImageTools,
  folder: PullFolder,
  args: string[],
  signal: AbortSignal,
): Promise<string> {
  try {
    return await runHost(tools.skopeo, args, {
      // Its temporary files (whole layers) go to the pull's folder, on the data folder's disk.
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: folder.dir, TMPDIR: folder.dir },
      cwd: folder.dir,
      stdout: 'pipe',
      signal,
    });
  } catch (err) {
    if (err instanceof HostToolError) throw new PullFailed(skopeoReason(err.output));
    throw err;
  }
}

/**
 * skopeo's reason, from its `level=fatal msg="…"` line: the last clause of the message
 * (`manifest unknown`, `connect: connection refused`), as short as a 422 may carry.
 */
export function skopeoReason(output: string): string {
  const fatal = /level=fatal msg="((?:[^"\\]|\\.)*)"/.exec(output)?.[1];
  const message = (fatal ?? output.trim().split('\n').at(-1) ?? '').replace(/\\"/g, '"');
  const cleaned = message.replace(/^Error parsing image name "[^"]*": /, '');
  const reason = cleaned.replace(/\s+/g, ' ').trim();
  return reason === '' ? 'skopeo failed without a reason' : reason.slice(0, 300);
}

/** The layout folder inside a pull's folder. */
export function pullFolder(dir: string): PullFolder {
  return { dir, authFile: join(dir, 'auth.json'), layout: join(dir, 'layout') };
}
