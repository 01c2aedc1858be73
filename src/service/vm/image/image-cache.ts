// The server's image cache (SPEC §4a): `<data>/images/sha256-<hex>/`, one folder per manifest
// digest, holding the unpacked root file system (`rootfs/`, owned by the cache's own id range)
// and `image.json` (the names it was pulled as, its config, its size). Every VM made from an
// image shares that folder read-only as the lower layer of its root file system; what a VM
// changes lands in its own disk. The cache folder is the server's alone (0700): no host user
// reaches an image's files but through a VM.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { idBaseOf } from '../id-ranges.js';
import { imageConfig, readLayoutConfig, type ImageConfig } from './image-config.js';
import { canonicalName, parseReference } from '../../rules/image-reference.js';
import { pullSource, type RegistrySettings } from './registries.js';
import {
  copyToLayout,
  currentDigest,
  pullFolder,
  PullFailed,
  writeAuthFile,
  type ImageTools,
} from './skopeo.js';
import { unpackLayout } from './unpack.js';
import { folderBytes } from './folder-bytes.js';

/** One image of the cache. */
export interface CachedImage {
  /** `sha256:<hex>`: the manifest digest it was pulled by. */
  readonly digest: string;
  /** The canonical names it was pulled as (`docker.io/library/busybox:1`). */
  readonly names: readonly string[];
  readonly config: ImageConfig;
  /** What its unpacked files take, in bytes. */
  readonly sizeBytes: number;
  /** Its root file system: the lower layer of every VM made from it. */
  readonly rootfs: string;
}

/** What one pull is given. */
export interface PullRequest {
  /** The reference as the user gave it. */
  readonly reference: string;
  /** `--registry-auth`, already split. */
  readonly credentials: { user: string; password: string } | null;
  /** The image may not take more than this unpacked (the VM's disk). */
  readonly maxBytes: number;
  readonly signal: AbortSignal;
}

const PREFIX = 'sha256-';

/** The image cache of one data folder. */
export class ImageCache {
  constructor(
    private readonly root: string,
    private readonly tools: ImageTools,
    private readonly settings: RegistrySettings,
    /** The host-wide folder of id-range claims (the cache holds one range). */
    private readonly idRegistry: string,
  ) {}

  /**
   * The image `request.reference` names now, pulled and unpacked when the cache lacks it. A
   * pull that fails leaves nothing behind.
   *
   * @throws BadReference for a reference that is not one; PullFailed with the cause.
   */
  async ensure(request: PullRequest): Promise<CachedImage> {
    const ref = parseReference(request.reference);
    const source = pullSource(ref, this.settings);
    await this.prepareRoot();
    const work = pullFolder(join(this.root, `.pull-${randomBytes(8).toString('hex')}`));
    await mkdir(work.dir, { mode: 0o700 });
    try {
      await writeAuthFile(work, source, request.credentials);
      const digest = await currentDigest(this.tools, work, source, ref, request.signal);
      const name = canonicalName(ref);
      const cached = await this.get(digest);
      if (cached !== undefined) return await this.addName(cached, name);
      await copyToLayout(this.tools, work, source, ref, digest, request.signal);
      const config = await readLayoutConfig(work.layout);
      const bundle = join(work.dir, 'bundle');
      const idBase = await idBaseOf(this.root, this.idRegistry);
      await unpackLayout(this.tools, work.layout, bundle, idBase, request.signal);
      const sizeBytes = await folderBytes(join(bundle, 'rootfs'));
      if (sizeBytes > request.maxBytes) {
        const mib = (n: number) => `${Math.ceil(n / 2 ** 20)}M`;
        throw new PullFailed(
          `it takes ${mib(sizeBytes)} unpacked, more than the VM's disk of ${mib(request.maxBytes)}`,
        );
      }
      await writeMeta(bundle, { digest, names: [name], config, sizeBytes });
      return await this.settle(bundle, digest);
    } finally {
      await rm(work.dir, { recursive: true, force: true });
    }
  }

  /** The cached image of `digest`, if the cache holds it. */
  get(digest: string): Promise<CachedImage | undefined> {
    return readCachedImage(this.root, digest);
  }

  private folderOf(digest: string): string {
    return imageFolder(this.root, digest);
  }

  private async prepareRoot(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    await chmod(this.root, 0o700);
  }

  // Two pulls of one image may finish together: the first rename wins, the other's goes.
  private async settle(bundle: string, digest: string): Promise<CachedImage> {
    const dir = this.folderOf(digest);
    await rename(bundle, dir).catch((err: NodeJS.ErrnoException) => {
      if (!existsSync(dir)) throw err;
    });
    const image = await this.get(digest);
    if (image === undefined) throw new PullFailed('the unpacked image could not be read back');
    return image;
  }

  private async addName(image: CachedImage, name: string): Promise<CachedImage> {
    if (image.names.includes(name)) return image;
    const updated = { ...image, names: [...image.names, name] };
    await writeMeta(this.folderOf(image.digest), updated);
    return updated;
  }
}

/** The folder of the image of `digest` in the cache at `root`. */
export function imageFolder(root: string, digest: string): string {
  return join(root, PREFIX + digest.slice('sha256:'.length));
}

/** The image of `digest` in the cache at `root`, if it holds it. */
export async function readCachedImage(
  root: string,
  digest: string,
): Promise<CachedImage | undefined> {
  if (!/^sha256:[a-f0-9]{64}$/.test(digest)) return undefined;
  const dir = imageFolder(root, digest);
  try {
    return fromMeta(dir, JSON.parse(await readFile(join(dir, 'image.json'), 'utf8')) as unknown);
  } catch {
    return undefined;
  }
}

type Meta = Pick<CachedImage, 'digest' | 'names' | 'config' | 'sizeBytes'>;

async function writeMeta(dir: string, meta: Meta): Promise<void> {
  const temp = join(dir, `.image-${randomBytes(6).toString('hex')}.json`);
  const { digest, names, config, sizeBytes } = meta;
  await writeFile(temp, JSON.stringify({ digest, names, config, sizeBytes }), { mode: 0o600 });
  await rename(temp, join(dir, 'image.json'));
}

// image.json is the server's own, but read as carefully as the layout it came from.
function fromMeta(dir: string, value: unknown): CachedImage | undefined {
  const meta = (typeof value === 'object' && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  const { digest, names, sizeBytes, config } = meta;
  if (typeof digest !== 'string' || typeof sizeBytes !== 'number') return undefined;
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) return undefined;
  const stored = (config ?? {}) as Record<string, unknown>;
  return {
    digest,
    names,
    sizeBytes,
    config: imageConfig({
      Env: Array.isArray(stored['env'])
        ? (stored['env'] as [string, string][]).map((p) => `${p[0]}=${p[1]}`)
        : [],
      Entrypoint: stored['entrypoint'],
      Cmd: stored['cmd'],
      WorkingDir: stored['workingDir'],
      ExposedPorts: Object.fromEntries(
        (Array.isArray(stored['exposedPorts']) ? stored['exposedPorts'] : []).map((p) => [
          `${String(p)}/tcp`,
          {},
        ]),
      ),
    }),
    rootfs: join(dir, 'rootfs'),
  };
}
