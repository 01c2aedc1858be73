// The operator's registry settings (SPEC §4a), checked once for `serve` and the library alike:
// `--registry-mirror URL` (http[s]://host[:port], standing in for Docker Hub) and
// `--insecure-registry HOST[:PORT]` (repeatable).

/** The settings as `createService` takes them (config.ts `registries`). */
export interface RegistrySettingsInput {
  mirror?: string;
  insecure?: readonly string[];
}

const HOST_PORT = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]{1,5})?$/;

/**
 * Checks `mirror` and each of `insecure`; null when all are valid, else a sentence naming the
 * first that is not, as `option` (`--registry-mirror`, or its variable) calls it.
 */
export function registrySettingsError(
  settings: RegistrySettingsInput,
  names = { mirror: '--registry-mirror', insecure: '--insecure-registry' },
): string | null {
  if (settings.mirror !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(settings.mirror);
    } catch {
      url = undefined;
    }
    const bare =
      url !== undefined &&
      ['http:', 'https:'].includes(url.protocol) &&
      url.pathname === '/' &&
      url.search === '' &&
      url.hash === '' &&
      url.username === '' &&
      url.password === '';
    if (!bare) return `${names.mirror} "${settings.mirror}" is not http[s]://host[:port]`;
  }
  const bad = (settings.insecure ?? []).find((h) => !HOST_PORT.test(h));
  if (bad !== undefined) return `${names.insecure} "${bad}" is not HOST[:PORT]`;
  return null;
}
