// The reflection listener's requests (SPEC §5): `/vm/<secret>/...` names one VM, whose
// documents it reads and through whose integrations it reaches their targets.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ExectlError } from '../../errors.js';
import { quote } from '../rules/validate.js';
import type { ServiceDeps } from '../deps.js';
import { sendError } from '../http/error-funnel.js';
import { forwardToIntegration } from '../integrations/forward.js';
import { loopOf, type LoopMarks } from '../integrations/loop.js';
import { newLogEntry, runLogged } from '../request-log.js';
import type { VmRecord } from '../store/index.js';
import { fieldDocument, fieldOfPath, indexDocument, openFields } from './documents.js';
import { forwardingIntegration } from './integration-access.js';
import { parseReflectionRoute } from './route.js';
import { vmOriginOf } from '../rules/client-address.js';
import { reflectionUrlOf } from './urls.js';

export type ReflectionDeps = Pick<ServiceDeps, 'store' | 'config' | 'endpoints'>;

/**
 * Answers one request on the reflection listener. The secret in the path is the only
 * credential: an unknown one is a plain 404, so nothing tells whether a VM exists. Documents
 * are GET only (405 `Allow: GET`); integration addresses forward any method. Logs one line per
 * request naming the VM, never its secret. A request this service's own integration forwarder
 * or VM proxy sent (it carries one of `loopMarks`) is refused with 508.
 *
 * With `bindToVm` (machine VMs: each opens its connections inside a network of its own, so the
 * server knows which VM opened each, rules/client-address.ts) a VM's secret answers only on
 * connections from that VM (SPEC §5): from another VM or from the host it is the same 404 as an
 * unknown secret, so a leaked URL is useless anywhere else. Without it (VMs share the host's
 * network) no connection can be told apart, and the secret alone decides.
 */
export function createReflectionHandler(
  deps: ReflectionDeps,
  loopMarks: LoopMarks,
  bindToVm: boolean,
) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const entry = newLogEntry('reflection');
    res.setHeader('X-Request-Id', entry.requestId);
    const work = async () => {
      const loop = loopOf(req, loopMarks);
      if (loop !== null) throw loop;
      return answer(deps, req, res, { loopMark: loopMarks.integration, bindToVm }, (path) => {
        entry.path = path;
      });
    };
    await runLogged(deps.config.log, entry, work, (err) => sendError(res, err));
  };
}

/** Sends the answer and returns its status; failures are thrown for the error funnel. */
async function answer(
  deps: ReflectionDeps,
  req: IncomingMessage,
  res: ServerResponse,
  { loopMark, bindToVm }: { loopMark: string; bindToVm: boolean },
  logAs: (path: string) => void,
): Promise<number> {
  const route = parseReflectionRoute(req.url ?? '/');
  const vm = route.kind === 'none' ? undefined : deps.store.getVmByReflectionSecret(route.secret);
  const fromElsewhere = bindToVm && vm !== undefined && vmOriginOf(req.socket)?.vmId !== vm.id;
  if (route.kind === 'none' || vm === undefined || fromElsewhere) {
    throw new ExectlError('not_found', 'not found');
  }
  const integrations = deps.store.integrationsForVm(vm);

  if (route.kind === 'integration') {
    logAs(`${vm.name} ${req.method ?? '-'} /i/${route.name}`);
    const integration = forwardingIntegration(deps.store, vm, integrations, route.name);
    return forwardToIntegration(req, res, integration, route.rest, {
      loopMark,
      allowPrivateTargets: deps.config.allowPrivateTargets === true,
    });
  }

  logAs(`${vm.name} ${req.method ?? '-'} ${route.path}`);
  if (req.method !== 'GET') {
    throw new ExectlError('method_not_allowed', 'method not allowed', {
      headers: { Allow: 'GET' },
    });
  }
  const fields = openFields(integrations);
  if (fields === null) {
    throw new ExectlError('forbidden', 'the reflection integration is not attached to this vm');
  }
  const view = {
    vm,
    ownerEmail: ownerEmail(deps, vm),
    integrations,
    reflectionUrl: reflectionUrlOf(deps.endpoints.reflection, vm.reflectionSecret),
    fields,
  };
  if (route.path === '/') return writePrettyJson(res, indexDocument(view));
  const field = fieldOfPath(route.path);
  if (field === undefined) {
    throw new ExectlError('not_found', `unknown reflection path ${quote(route.path)}`);
  }
  if (!fields.has(field)) {
    throw new ExectlError('forbidden', `reflection path /${field} is not enabled for this vm`);
  }
  return writePrettyJson(res, fieldDocument(view, field));
}

function ownerEmail(deps: ReflectionDeps, vm: VmRecord): string {
  const owner = deps.store.getAccount(vm.accountId);
  // A VM record never outlives its account (removeAccount deletes both in one transaction).
  if (owner === undefined) throw new Error(`vm ${vm.id} has no owner account`);
  return owner.email;
}

/** SPEC §5: pretty-printed JSON (two spaces) and a newline. Errors go through the funnel. */
function writePrettyJson(res: ServerResponse, body: unknown): number {
  const text = `${JSON.stringify(body, null, 2)}\n`;
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    // Tags, comment and port change with commands: a cached answer would be stale.
    'Cache-Control': 'no-store',
  });
  res.end(text);
  return 200;
}
