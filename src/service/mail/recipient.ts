// Which VM an envelope recipient names (SPEC §4b: `*@<vm>.<vm-domain>`). The address comes from
// anyone who can reach the SMTP listener: it is only ever compared, never interpreted.

/** A VM name (SPEC §3: a DNS label), as in rules/validate.ts. */
const VM_LABEL = /^[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

/** The most bytes of a local part (RFC 5321 §4.5.3.1.1). */
const MAX_LOCAL_PART = 64;

/** Visible ASCII but `@`, `<` and `>`: anything else never names one of our mailboxes. */
const LOCAL_PART = /^[\x21-\x3b\x3d\x3f\x41-\x7e]+$/;

/**
 * The name of the VM whose mailbox `address` is (`anything@<vm>.<vmDomain>`, the domain compared
 * without regard to ASCII case), or undefined when it names none: another domain, a name that
 * is no VM name, a local part that is empty, too long or not visible ASCII (or holds `<`/`>`).
 */
export function vmOfRecipient(address: string, vmDomain: string): string | undefined {
  const at = address.lastIndexOf('@');
  if (at <= 0) return undefined;
  const local = address.slice(0, at);
  if (local.length > MAX_LOCAL_PART || !LOCAL_PART.test(local)) return undefined;
  const domain = asciiLower(address.slice(at + 1));
  const suffix = `.${asciiLower(vmDomain)}`;
  if (!domain.endsWith(suffix)) return undefined;
  const vm = domain.slice(0, -suffix.length);
  return VM_LABEL.test(vm) ? vm : undefined;
}

function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}
