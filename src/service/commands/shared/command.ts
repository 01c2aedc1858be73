import type { ServiceDeps } from '../../deps.js';
import type { CommandContext, CommandDefinition, JsonOutput } from '../../dispatch/types.js';

/** A command of the service: every definition in this folder has this type. */
export type ServiceCommand = CommandDefinition<ServiceDeps>;

/** What a running service command receives. */
export type ServiceContext = CommandContext<ServiceDeps>;

/** The JSON answer of a command (the front end renders it). */
export function json(data: unknown): JsonOutput {
  return { kind: 'json', data };
}

/** The current time in whole unix seconds, from the service's injectable clock. */
export function nowSeconds(ctx: ServiceContext): number {
  return Math.floor(ctx.deps.now() / 1000);
}
