// An image reference as `new --image` takes it (SPEC §4a), resolved as Docker resolves it:
// `ubuntu:22.04` is `docker.io/library/ubuntu:22.04`, a first component with a dot, a colon or
// `localhost` names its registry. The reference is the user's: it is checked against the
// grammar of the distribution spec here, character by character, before any tool sees it, so
// what reaches skopeo is one well-formed `docker://` name and never an option or a path.

/** A reference resolved to its registry, repository and tag or digest. */
export interface ImageReference {
  /** The reference as the user gave it (what `ls` and `stat` show). */
  readonly given: string;
  /** `docker.io`, or `host[:port]`. */
  readonly registry: string;
  /** `library/ubuntu`, `team/app`. */
  readonly repository: string;
  /** `22.04`; `latest` when neither a tag nor a digest was given. */
  readonly tag: string | null;
  /** `sha256:<64 hex>` when the reference pins one. */
  readonly digest: string | null;
}

/** Docker Hub, where a name without a registry lives. */
export const DOCKER_HUB = 'docker.io';

const MAX_REFERENCE = 255;
const COMPONENT = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const REGISTRY =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*(?::[0-9]{1,5})?$/;

/** Thrown for a reference that is not one; its message names what is wrong. */
export class BadReference extends Error {
  constructor(
    readonly given: string,
    why: string,
  ) {
    super(why);
    this.name = 'BadReference';
  }
}

/**
 * Parses and resolves `given` (`name[:tag][@sha256:…]`).
 *
 * @throws BadReference naming the part that is not valid.
 */
export function parseReference(given: string): ImageReference {
  if (given.length === 0 || given.length > MAX_REFERENCE) {
    throw new BadReference(given, `an image reference has 1 to ${MAX_REFERENCE} characters`);
  }
  let rest = given;
  let digest: string | null = null;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw new BadReference(given, 'its digest is not sha256:<64 hex>');
  }
  let tag: string | null = null;
  const slash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > slash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw new BadReference(given, `its tag "${tag}" is not a valid tag`);
  }
  const parts = rest.split('/');
  const first = parts[0]!;
  const namesRegistry =
    parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost');
  const registry = namesRegistry ? first : DOCKER_HUB;
  if (namesRegistry && !validRegistry(first)) {
    throw new BadReference(given, `its registry "${first}" is not host[:port]`);
  }
  const path = namesRegistry ? parts.slice(1) : parts;
  if (path.length === 0 || path.some((p) => !COMPONENT.test(p))) {
    throw new BadReference(given, 'its name has lowercase letters, digits and . _ - / only');
  }
  const repository =
    registry === DOCKER_HUB && path.length === 1 ? `library/${path[0]}` : path.join('/');
  return { given, registry, repository, tag: tag ?? (digest === null ? 'latest' : null), digest };
}

function validRegistry(host: string): boolean {
  if (!REGISTRY.test(host)) return false;
  const port = host.split(':')[1];
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
}

/** The resolved name, as Docker prints it: `docker.io/library/ubuntu:22.04`. */
export function canonicalName(ref: ImageReference): string {
  const tag = ref.tag === null ? '' : `:${ref.tag}`;
  const digest = ref.digest === null ? '' : `@${ref.digest}`;
  return `${ref.registry}/${ref.repository}${tag}${digest}`;
}

/** `host[:port]/repository` on `registry`, pinned to `digest`, as skopeo's `docker://` name. */
export function pinnedTransportName(registry: string, ref: ImageReference, digest: string): string {
  return `docker://${registry}/${ref.repository}@${digest}`;
}

/** The `docker://` name skopeo asks `registry` for (the reference's own, or a mirror's). */
export function transportName(registry: string, ref: ImageReference): string {
  return `docker://${registry}/${ref.repository}${ref.digest === null ? `:${ref.tag}` : `@${ref.digest}`}`;
}
