// Which registry a pull asks, and how (SPEC §4a): `serve --registry-mirror URL` stands in for
// Docker Hub, `--insecure-registry HOST[:PORT]` is spoken to over plain HTTP (or TLS without
// verification), and `--registry-auth USER:PASS` signs the pull in.
import { DOCKER_HUB, type ImageReference } from '../../rules/image-reference.js';

/** The operator's registry settings (`serve` flags, EXECTL_ env, library options). */
export interface RegistrySettings {
  /** A mirror of Docker Hub, `http[s]://host[:port]`, asked instead of it. */
  readonly mirror?: string;
  /** Registries (`host[:port]`) spoken to without TLS verification. */
  readonly insecure?: readonly string[];
}

/** Where one pull goes. */
export interface PullSource {
  /** `host[:port]` asked for the image. */
  readonly registry: string;
  /** False: plain HTTP or unverified TLS (an insecure registry or an `http://` mirror). */
  readonly tlsVerify: boolean;
}

/** The registry to ask for `ref` under `settings`. */
export function pullSource(ref: ImageReference, settings: RegistrySettings): PullSource {
  const insecure = new Set(settings.insecure ?? []);
  if (ref.registry === DOCKER_HUB && settings.mirror !== undefined) {
    const mirror = new URL(settings.mirror);
    return {
      registry: mirror.host,
      tlsVerify: mirror.protocol === 'https:' && !insecure.has(mirror.host),
    };
  }
  return { registry: ref.registry, tlsVerify: !insecure.has(ref.registry) };
}
