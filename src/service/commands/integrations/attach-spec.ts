// The attachment specs `integrations add --attach` and `integrations attach` accept, and what a
// tag-scoped key may detach, remove or rename (only what reaches no VM past its tag). Which
// integrations such a key sees at all is rules/tag-scope.ts's (those attached to its tag).
import type { AttachmentSpec } from '../../store/index.js';
import type { ServiceContext } from '../shared/command.js';
import { findOwnVm, refuseIfTagScoped } from '../shared/vm-access.js';
import { parseAttachmentSpec } from '../../rules/integrations.js';
import { isInTagScope, tagScopeRefusal } from '../../rules/tag-scope.js';
import { quote } from '../../rules/validate.js';

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

/**
 * A spec the caller may detach: any well-formed one; for a tag-scoped key only one it could
 * attach (else detaching `auto:all` would take the integration from VMs outside its scope).
 *
 * @throws 422 as {@link parseAttachmentSpec}; 403 for a scoped key's spec past its tag.
 */
export function detachableSpec(ctx: ServiceContext, text: string): AttachmentSpec {
  const spec = parseAttachmentSpec(text);
  if (!isWithinTagScope(ctx, spec)) {
    refuseIfTagScoped(ctx.principal, `detach integrations from ${spec}`);
  }
  return spec;
}

/**
 * The attachments of a new integration (`integrations add --attach`): each as
 * {@link attachableSpec}, and for a tag-scoped key `tag:<its tag>` too, so the integration it
 * makes stays in its sight (as a VM it makes gets its tag).
 */
export function newAttachments(ctx: ServiceContext, texts: readonly string[]): AttachmentSpec[] {
  const specs = texts.map((text) => attachableSpec(ctx, text));
  const { tag } = ctx.principal;
  if (tag === null || specs.includes(`tag:${tag}`)) return specs;
  return [`tag:${tag}`, ...specs];
}

/**
 * Refuses a tag-scoped key an integration attached past its tag: removing or renaming it would
 * change what VMs outside the scope see. `what` is the act, e.g. `remove`. The refusal does not
 * name the attachment, which may name a VM the key may not see.
 *
 * @throws 403 `... cannot remove integration "x", which reaches vms past tag "ci": ...`.
 */
export function refuseBeyondScope(
  ctx: ServiceContext,
  integration: { name: string; attachments: readonly AttachmentSpec[] },
  what: string,
): void {
  const { tag } = ctx.principal;
  if (tag === null || integration.attachments.every((spec) => isWithinTagScope(ctx, spec))) return;
  throw tagScopeRefusal(
    tag,
    `${what} integration ${quote(integration.name)}, which reaches vms past tag ${quote(tag)}`,
  );
}

/**
 * Whether `spec` reaches only VMs in the caller's scope: any spec for an unscoped key; for a
 * scoped one `tag:<its tag>`, or `vm:` of a VM it owns that carries the tag. A VM of someone
 * else and a missing one answer alike, so the refusal tells nothing about other VMs.
 */
export function isWithinTagScope(ctx: ServiceContext, spec: AttachmentSpec): boolean {
  const { principal } = ctx;
  if (principal.tag === null || spec === `tag:${principal.tag}`) return true;
  if (!spec.startsWith('vm:')) return false;
  const vm = ctx.deps.store.getVmByName(spec.slice(3));
  return vm !== undefined && vm.accountId === principal.accountId && isInTagScope(principal, vm);
}
