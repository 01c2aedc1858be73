// The pulls of `new --image` (SPEC §4a): each VM's image into the image cache, then what the
// image brings stored on the VM (its digest, its Env under the VM's own `--env`, its first
// exposed port as the default port). A pull that fails is one 422 naming the reference and
// the cause.
import { join } from 'node:path';
import { commandFailed, ExectlError } from '../../../errors.js';
import type { Store, VmRecord } from '../../store/index.js';
import { BadReference } from '../../rules/image-reference.js';
import { ImageCache, PullFailed, type ImageConfig, type RegistrySettings } from '../image/index.js';
import { findExecutable } from '../process/index.js';
import type { DetectedRuntime } from '../runtime.js';

/** The default port a VM is stored with (store/vms.ts): an image's exposed port replaces it. */
const DEFAULT_PORT = 8000;

/** `--registry-auth`, split; never stored. */
export type RegistryCredentials = { user: string; password: string } | null;

/** The image pulls of one running service. */
export class ImagePulls {
  private readonly running = new Map<number, AbortController>();

  private constructor(
    private readonly store: Store,
    private readonly cache: ImageCache | null,
    /** Why this server cannot pull (no machine VMs, no skopeo or umoci); null when it can. */
    readonly missing: string | null,
  ) {}

  /** The pulls of the data folder `dataDir` under `detected`'s runtime. */
  static open(
    store: Store,
    dataDir: string,
    detected: DetectedRuntime,
    settings: RegistrySettings,
  ): ImagePulls {
    if (detected.kind !== 'bwrap' || detected.mode.kind !== 'machine') {
      return new ImagePulls(store, null, 'new --image needs a server running as root');
    }
    const skopeo = findExecutable('skopeo');
    const umoci = findExecutable('umoci');
    if (skopeo === undefined || umoci === undefined) {
      return new ImagePulls(store, null, 'new --image needs skopeo and umoci on the server');
    }
    const cache = new ImageCache(
      join(dataDir, 'images'),
      { skopeo, umoci },
      settings,
      detected.mode.registry,
    );
    return new ImagePulls(store, cache, null);
  }

  /** The image cache; null when this server cannot pull. */
  get images(): ImageCache | null {
    return this.cache;
  }

  /**
   * Pulls `vm`'s image and stores what it brings on the VM; resolves with the record.
   *
   * @throws ExectlError 422 `could not pull image "<ref>": <cause>`.
   */
  async pull(vm: VmRecord, credentials: RegistryCredentials, signal: AbortSignal) {
    const reference = vm.image?.reference ?? '';
    if (this.cache === null) {
      throw commandFailed(`could not pull image "${reference}": ${this.missing}`, {
        hint: 'create the VM without --image, or ask the operator (apt-get install skopeo umoci; serve as root)',
      });
    }
    const controller = new AbortController();
    const stop = () => controller.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    this.running.set(vm.id, controller);
    try {
      const image = await this.cache.ensure({
        reference,
        credentials,
        maxBytes: vm.limits.diskBytes,
        signal: controller.signal,
      });
      this.store.setImageDigest(vm.id, image.digest);
      this.store.setEnv(vm.id, { ...imageEnv(image.config), ...vm.env });
      const port = image.config.exposedPorts[0];
      if (port !== undefined && vm.defaultPort === DEFAULT_PORT) {
        this.store.setDefaultPort(vm.id, port);
      }
      return this.store.getVm(vm.id) ?? vm;
    } catch (err) {
      throw pullError(reference, err, controller.signal);
    } finally {
      signal.removeEventListener('abort', stop);
      this.running.delete(vm.id);
    }
  }

  /** Ends the pull of the VM, if one runs (`rm`). */
  stop(vmId: number): void {
    this.running.get(vmId)?.abort(new Error('the VM was removed'));
  }
}

// PATH of the image's, with the exectl client's folder last (SPEC §4: on PATH in every VM).
function imageEnv(config: ImageConfig): Record<string, string> {
  const env = Object.fromEntries(config.env);
  const path = env['PATH'];
  if (path !== undefined && !path.split(':').includes('/opt/exectl/bin')) {
    env['PATH'] = `${path}:/opt/exectl/bin`;
  }
  return env;
}

function pullError(reference: string, err: unknown, signal: AbortSignal): Error {
  if (err instanceof ExectlError) return err;
  const hint = {
    hint: 'check the name, the registry (serve --insecure-registry for a plain-HTTP one) and --registry-auth USER:PASS',
  };
  if (err instanceof PullFailed || err instanceof BadReference) {
    return commandFailed(`could not pull image "${reference}": ${err.message}`, hint);
  }
  if (signal.aborted) {
    const why: unknown = signal.reason;
    return commandFailed(
      `could not pull image "${reference}": ${why instanceof Error ? why.message : 'stopped'}`,
    );
  }
  const full = (err as NodeJS.ErrnoException).code === 'ENOSPC';
  if (full) return commandFailed(`could not pull image "${reference}": the server's disk is full`);
  return err instanceof Error ? err : new Error(String(err));
}
