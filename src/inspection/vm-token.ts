// Which VM a token is for, read from its namespace (SPEC §1.2): `v0@<vm>.<domain>` is a VM token
// for the VM proxy (§6), where a token's `cmds` do not apply.

const VM_NAME = /^[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

/**
 * The VM that `namespace` names, when it is `v0@<vm>.<domain>` for the domain of
 * `commandNamespace` (the client's `v0@<domain>`, from --namespace, the profile or the
 * default); undefined for a command token or a namespace of another server.
 */
export function vmOfNamespace(namespace: string, commandNamespace: string): string | undefined {
  if (!commandNamespace.startsWith('v0@') || !namespace.startsWith('v0@')) return undefined;
  const suffix = `.${commandNamespace.slice(3)}`;
  if (!namespace.endsWith(suffix)) return undefined;
  const vm = namespace.slice(3, -suffix.length);
  return VM_NAME.test(vm) ? vm : undefined;
}
