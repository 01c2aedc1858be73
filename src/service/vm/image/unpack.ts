// An image's layers into a root file system (SPEC §4a), by umoci, as host root: every owner of
// the image is shifted into the image cache's own id range (`--uid-map 0:<base>:65536`), so
// no file of any image is owned by a host user, root included, and no set-id bit of an image
// means anything on the host. A VM sees the files as its own ids through an idmapped mount
// (scripts/machine-root.pl). umoci applies whiteouts itself and resolves every name of a layer
// inside the root (`..`, absolute symlinks); device nodes, sockets and fifos are then removed
// (scripts/image-tidy.sh). The tests of hostile layers (image-hostile-layers.test.ts) hold
// both to it.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_PATH, HostToolError, runHost } from '../process/index.js';
import { scriptText } from '../scripts/index.js';
import { IDS_PER_VM } from '../id-ranges.js';
import { LAYOUT_TAG, PullFailed, type ImageTools } from './skopeo.js';

/** The bundle folder umoci makes: `rootfs/` and its own bookkeeping, which goes. */
const UMOCI_FILES = ['config.json', 'umoci.json'];

/**
 * Unpacks the layout's image into `bundle/rootfs`, owned by ids from `idBase` on.
 *
 * @throws PullFailed with umoci's reason (a layer it refuses, a full disk).
 */
export async function unpackLayout(
  tools: ImageTools,
  layout: string,
  bundle: string,
  idBase: number,
  signal: AbortSignal,
): Promise<string> {
  const map = `0:${idBase}:${IDS_PER_VM}`;
  const env = { PATH: DEFAULT_PATH };
  try {
    await runHost(
      tools.umoci,
      ['unpack', '--uid-map', map, '--gid-map', map, '--image', `${layout}:${LAYOUT_TAG}`, bundle],
      { env, cwd: '/', stdout: 'pipe', signal },
    );
  } catch (err) {
    if (err instanceof HostToolError) throw new PullFailed(umociReason(err.output));
    throw err;
  }
  const rootfs = join(bundle, 'rootfs');
  await runHost('/bin/sh', ['-c', scriptText('image-tidy.sh'), 'tidy', rootfs], {
    env,
    cwd: '/',
    stdout: 'pipe',
    signal,
  });
  for (const name of await readdir(bundle)) {
    if (UMOCI_FILES.includes(name) || name.endsWith('.mtree')) await rm(join(bundle, name));
  }
  return rootfs;
}

function umociReason(output: string): string {
  const line = output.trim().split('\n').at(-1) ?? '';
  const reason = line
    .replace(/^.*?(?:level=\w+ msg=")?/, '')
    .replace(/"$/, '')
    .trim();
  return `unpacking failed: ${(reason || 'umoci failed without a reason').slice(0, 300)}`;
}
