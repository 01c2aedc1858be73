// Which integration a VM's request to `{reflection_url}/i/<name>` reaches, if any.
import { ExectlError } from '../../errors.js';
import { quote } from '../rules/validate.js';
import type { ForwardingIntegration } from '../integrations/forward.js';
import type { IntegrationRecord, Store, VmRecord } from '../store/index.js';

/**
 * The VM owner's integration called `name`, when it forwards requests and is attached to the
 * VM. `attached` is what `integrationsForVm` gave for this VM.
 *
 * @throws ExectlError 404 `integration "x" not found` (none of the owner's has that name),
 *   404 `integration "x" does not forward requests` (a reflection integration), 403
 *   `integration "x" is not attached to this vm`.
 */
export function forwardingIntegration(
  store: Pick<Store, 'getIntegration'>,
  vm: VmRecord,
  attached: readonly IntegrationRecord[],
  name: string,
): ForwardingIntegration {
  const integration = store.getIntegration(vm.accountId, name);
  if (integration === undefined) {
    throw new ExectlError('not_found', `integration ${quote(name)} not found`);
  }
  if (integration.target === null) {
    throw new ExectlError('not_found', `integration ${quote(name)} does not forward requests`);
  }
  if (!attached.some((a) => a.id === integration.id)) {
    throw new ExectlError('forbidden', `integration ${quote(name)} is not attached to this vm`);
  }
  return { ...integration, target: integration.target };
}
