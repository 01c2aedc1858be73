import { commandFailed } from '../../errors.js';
import { json, type ServiceCommand } from './shared/command.js';
import { storeNewVm } from './shared/new-record.js';
import { checkVmName, quote } from '../rules/validate.js';
import { findOwnVm } from './shared/vm-access.js';
import { vmSummary } from './vm-view.js';

/**
 * `cp <vm> [<new-name>]` — a new VM of the caller's with a copy of its VM's disk, tags,
 * comment, default port, env and limits; its own name (random `adjective-noun` when none is
 * given), id range, shares (none) and reflection secret. A running VM goes on running: its
 * disk is frozen for the copy (writers wait, nothing else stops), so the copy is consistent.
 * Owner only. Answers like `new`.
 */
export const cpCommand: ServiceCommand = {
  path: 'cp',
  description:
    'Copy your VM: a new VM with a copy of its disk, tags, comment, port and env (owner only)',
  usage: 'cp <vm> [<new-name>]',
  flags: [],
  args: [
    { name: 'vm', required: true },
    { name: 'new-name', required: false },
  ],
  examples: ['cp web', 'cp web web-staging'],
  mutates: true,
  async run(ctx, input) {
    const { store, machines } = ctx.deps;
    const from = findOwnVm(ctx, input.args[0] ?? '', 'copy it');
    const given = input.args[1];
    if (given !== undefined) checkVmName(given);
    if (from.status === 'creating') {
      throw commandFailed(`vm ${quote(from.name)} is still being created`, {
        hint: `copy it once "stat ${from.name}" shows it running`,
      });
    }
    const to = storeNewVm(ctx, given, {
      accountId: ctx.principal.accountId,
      status: 'creating',
      tags: from.tags,
      comment: from.comment,
      defaultPort: from.defaultPort,
      env: from.env,
      limits: from.limits,
      // The same image below its copied disk (SPEC §4a: cp keeps the image).
      image: from.image,
    });
    try {
      await machines.copy(from, to);
    } catch (error) {
      // (An `rm` of the copy, which aborted it, may have deleted its record already.)
      await machines.remove(to).then(
        () => {
          if (store.getVm(to.id) !== undefined) store.deleteVm(to.id);
        },
        (cleanup: unknown) =>
          ctx.deps.config.log(
            `req=${ctx.requestId} cp: removing the half-made copy "${to.name}" failed: ${String(cleanup)}`,
            'warn',
          ),
      );
      throw error;
    }
    const made = store.setSetup(to.id, { status: 'none', lastLine: null }, 'running');
    return json(vmSummary(ctx.deps, made));
  },
  // The same answer as `new`'s, shown the same way.
};
