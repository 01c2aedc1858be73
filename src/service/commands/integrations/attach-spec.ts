// The attachment specs `integrations add --attach` and `integrations attach` accept.
import type { AttachmentSpec } from '../../store/index.js';
import type { ServiceContext } from '../shared/command.js';
import { findOwnVm, refuseIfTagScoped } from '../shared/vm-access.js';
import { parseAttachmentSpec } from '../../rules/integrations.js';

/**
 * A spec the caller may attach: well-formed, and for `vm:<name>` a VM the caller owns (an
 * integration is seen only by its owner's VMs, so any other VM could never match it). A
 * tag-scoped key reaches no VM outside its scope this way either: only `vm:<name>` of a VM in
 * its scope and `tag:<its tag>`.
 *
 * @throws 422 as {@link parseAttachmentSpec}, `vm "x" not found`, or
 *   `only the owner of vm "x" can attach integrations to it`; 403 for a scoped key's
 *   `auto:all` or `tag:<another tag>`.
 */
export function attachableSpec(ctx: ServiceContext, text: string): AttachmentSpec {
  const spec = parseAttachmentSpec(text);
  if (spec.startsWith('vm:')) {
    findOwnVm(ctx, spec.slice(3), 'attach integrations to it');
  } else {
    const { tag } = ctx.principal;
    if (tag === null || spec !== `tag:${tag}`) {
      refuseIfTagScoped(ctx.principal, `attach integrations to ${spec}`);
    }
  }
  return spec;
}
