// The addresses a VM is given: its reflection URL, and under it one address per integration.
import type { IntegrationType } from '../store/index.js';

/**
 * The segment under a VM's reflection URL where its integrations are served:
 * `{reflection_url}/i/<name>/...`. Not `/integrations/<name>`: `/integrations` is already the
 * reflection path that lists them, and a list and a proxy must not share a prefix.
 */
export const INTEGRATION_SEGMENT = 'i';

/**
 * A VM's `{reflection_url}` (its `EXECTL_REFLECTION_URL`): the reflection listener's base URL
 * and the VM's secret. The service hands vm/ exactly this to give each VM, so the help
 * lines the listener shows are the addresses the VM actually has.
 */
export function reflectionUrlOf(listenerBase: string, secret: string): string {
  return `${listenerBase}/vm/${secret}`;
}

/** An integration's address as seen from the VM. */
function integrationUrlOf(reflectionUrl: string, name: string): string {
  return `${reflectionUrl}/${INTEGRATION_SEGMENT}/${name}`;
}

/** The `help` line of SPEC §5: how a program in the VM uses an integration of this type. */
export function integrationHelp(
  type: IntegrationType,
  reflectionUrl: string,
  name: string,
): string {
  if (type === 'reflection') return `curl ${reflectionUrl}/`;
  const url = integrationUrlOf(reflectionUrl, name);
  switch (type) {
    case 'llm':
      return `curl ${url}/v1/models`;
    case 'github':
      return `git clone ${url}/<org>/<repo>.git`;
    case 'http-proxy':
      return `curl ${url}/`;
  }
}
