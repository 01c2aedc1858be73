import { canonicalToken, svc1In } from '../../dialects.js';
import { newSvc1 } from '../../token/format.js';
import { dialectsOf } from '../config.js';
import { json, type ServiceCommand } from './shared/command.js';
import { verifyOwnSvc0 } from './own-svc0.js';
import { tokenNamespace } from './shared/token-options.js';
import { findVisibleVm } from './shared/vm-access.js';

interface Svc1Data {
  token: string;
}

/**
 * `svc0-to-svc1 [--vm V] <svc0-token>` — a short svc1 handle for a svc0 token the caller
 * signed (for `v0@<domain>`, or `v0@V.<domain>` with `--vm`). The same payload signed by the
 * same key for the same namespace always gives the same svc1, whatever the signature bytes.
 * The svc1 is checked like its svc0 at every use: it expires with it and dies with its key.
 */
export const svc0ToSvc1Command: ServiceCommand = {
  path: 'svc0-to-svc1',
  description: 'Exchange a svc0 token signed by one of your keys for a short svc1 token',
  usage: 'svc0-to-svc1 [--vm V] <svc0-token>',
  flags: [
    {
      name: 'vm',
      type: 'string',
      description: 'The token is a VM token for this VM (signed for v0@<vm>.<domain>)',
    },
  ],
  args: [{ name: 'svc0-token', required: true }],
  examples: [
    'svc0-to-svc1 svc0.eyJleHAiOjE5MDAwMDAwMDB9.U1NIU0lH...',
    'svc0-to-svc1 --vm web svc0.e30.U1NIU0lH...',
  ],
  // It stores a handle on first use (the same input then always gives the same answer).
  mutates: true,
  async run(ctx, input) {
    const token = input.args[0] ?? '';
    const vmName = input.flags.string('vm');
    if (vmName !== undefined) findVisibleVm(ctx, vmName);
    const namespace = tokenNamespace(ctx.deps, vmName);
    const verified = verifyOwnSvc0(ctx, token, namespace);
    const svc0 = canonicalToken(token, dialectsOf(ctx.deps.config));
    const record = ctx.deps.store.findOrCreateSvc1({
      fingerprint: verified.fingerprint,
      namespace,
      payload: verified.payload,
      svc0,
      exp: verified.permissions.exp ?? null,
      newHandle: newSvc1,
    });
    // Called as `exe0-to-exe1` (SPEC §12) it answers `exe1.…`: the same handle.
    const data: Svc1Data = { token: svc1In(record.handle, ctx.dialect) };
    return json(data);
  },
};
