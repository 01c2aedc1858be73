// The reflection listener (SPEC §5): its own port, VMs' metadata and integrations behind it.
import type { HttpListener } from '../http/http-server.js';
import type { ConnectionLimits } from '../http/connection-caps.js';
import { listenHttp } from '../http/http-server.js';
import { createReflectionHandler, type ReflectionDeps } from './handler.js';
import type { LoopMarks } from '../integrations/loop.js';

export { reflectionUrlOf } from './urls.js';

/**
 * Starts the reflection listener on `config.reflectionListen` (plain HTTP: VMs reach it at
 * the same address inside their own network). Its base URL is the caller's to put in `endpoints.reflection`, before
 * any VM command runs, since VMs are told `{endpoints.reflection}/vm/<secret>`. `loopMarks` are
 * the service's loop marks (integrations/loop.ts); `limits` cap its connections. With
 * `bindToVm` (machine VMs, each in a network of its own) a VM's URL answers only on connections
 * that VM opened.
 */
export function startReflectionListener(
  deps: ReflectionDeps,
  loopMarks: LoopMarks,
  limits: ConnectionLimits,
  bindToVm: boolean,
): Promise<HttpListener> {
  return listenHttp({
    name: '--reflection-listen',
    listen: deps.config.reflectionListen,
    tls: null,
    route: createReflectionHandler(deps, loopMarks, bindToVm),
    limits,
    log: deps.config.log,
  });
}
