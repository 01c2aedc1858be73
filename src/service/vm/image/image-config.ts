// What of an image's config a VM honours (SPEC §4a): its Env, Entrypoint, Cmd, WorkingDir and
// ExposedPorts, read from the OCI layout a pull made. The layout's JSON came from a registry,
// any registry: every field is checked for its shape and anything else is ignored; a digest
// becomes a path only once it is `sha256:<64 hex>`.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LAYOUT_TAG } from './skopeo.js';

/** The parts of an image config a VM uses. */
export interface ImageConfig {
  /** `Env`, in order, as name and value. */
  readonly env: readonly (readonly [string, string])[];
  readonly entrypoint: readonly string[];
  readonly cmd: readonly string[];
  /** `WorkingDir`; `/` when the image sets none. */
  readonly workingDir: string;
  /** The TCP ports of `ExposedPorts`, in the config's order. */
  readonly exposedPorts: readonly number[];
}

/** The config of the layout's image, and its manifest's digest. */
export async function readLayoutConfig(layout: string): Promise<ImageConfig> {
  const index = await readJson(join(layout, 'index.json'));
  const manifests = arrayOf(index['manifests']);
  const entry = manifests.find(
    (m) => objectOf(m['annotations'])['org.opencontainers.image.ref.name'] === LAYOUT_TAG,
  );
  if (entry === undefined) throw new Error('the pulled image has no manifest');
  const manifest = await readJson(blobPath(layout, entry['digest']));
  const config = await readJson(blobPath(layout, objectOf(manifest['config'])['digest']));
  return imageConfig(objectOf(config['config']));
}

/** The config's fields a VM uses, from the `config` object of an OCI image config. */
export function imageConfig(config: Record<string, unknown>): ImageConfig {
  const workingDir = config['WorkingDir'];
  return {
    env: strings(config['Env']).flatMap((pair) => {
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      return eq > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !pair.includes('\0')
        ? [[name, pair.slice(eq + 1)] as const]
        : [];
    }),
    entrypoint: strings(config['Entrypoint']),
    cmd: strings(config['Cmd']),
    workingDir:
      typeof workingDir === 'string' && workingDir.startsWith('/') && !workingDir.includes('\0')
        ? workingDir
        : '/',
    exposedPorts: Object.keys(objectOf(config['ExposedPorts'])).flatMap((key) => {
      const m = /^([0-9]{1,5})(?:\/tcp)?$/.exec(key);
      const port = Number(m?.[1]);
      return m !== null && port >= 1 && port <= 65535 ? [port] : [];
    }),
  };
}

function blobPath(layout: string, digest: unknown): string {
  if (typeof digest !== 'string' || !/^sha256:[a-f0-9]{64}$/.test(digest)) {
    throw new Error('the pulled image names a blob that is not sha256:<64 hex>');
  }
  return join(layout, 'blobs', 'sha256', digest.slice('sha256:'.length));
}

async function readJson(path: string): Promise<Record<string, unknown>> {
  return objectOf(JSON.parse(await readFile(path, 'utf8')) as unknown);
}

function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function arrayOf(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.map(objectOf) : [];
}

// A command word with a NUL could not be passed on as an argument: the field is dropped whole.
function strings(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const all = value.every((v) => typeof v === 'string' && !v.includes('\0'));
  return all ? (value as string[]) : [];
}
