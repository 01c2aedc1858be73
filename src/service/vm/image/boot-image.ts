// What a machine VM made from an image boots with (SPEC §4a): the image's root file system as
// the lower layer of its own, the id range that owns those files, and the command its init
// starts as a service (scripts/vm-service.sh).
import { idBaseOf } from '../id-ranges.js';
import { scriptText } from '../scripts/index.js';
import type { ImageConfig } from './image-config.js';
import { readCachedImage } from './image-cache.js';

/** The image of a VM, as the runtime is told of it. */
export interface VmImageSpec {
  /** The image cache of the VM's data folder (`<data>/images`). */
  readonly cacheRoot: string;
  /** `sha256:…`: the image the VM was made from. */
  readonly digest: string;
  /** `--command`: `auto`, `none`, or a shell command. */
  readonly command: string;
}

/** What the boot needs of the image. */
export interface BootImage {
  readonly rootfs: string;
  /** The first host id of the cache's range, which owns the image's files. */
  readonly lowerIds: number;
  readonly config: ImageConfig;
}

/** The VM's image as the boot needs it; rejects when the cache no longer holds it. */
export async function bootImage(image: VmImageSpec, idRegistry: string): Promise<BootImage> {
  const cached = await readCachedImage(image.cacheRoot, image.digest);
  if (cached === undefined) throw new Error(`its image ${image.digest} is not in the image cache`);
  const lowerIds = await idBaseOf(image.cacheRoot, idRegistry);
  return { rootfs: cached.rootfs, lowerIds, config: cached.config };
}

/**
 * The init's service arguments (bwrap-args.ts): the text of vm-service.sh, the working folder,
 * the environment, `--`, the command; none for `--command none` or an image without one.
 */
export function serviceWords(
  command: string,
  config: ImageConfig,
  env: Readonly<Record<string, string>>,
): string[] {
  const argv =
    command === 'auto'
      ? [...config.entrypoint, ...config.cmd]
      : command === 'none'
        ? []
        : ['/bin/sh', '-c', command];
  if (argv.length === 0) return [];
  const pairs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  return [scriptText('vm-service.sh'), config.workingDir, ...pairs, '--', ...argv];
}
