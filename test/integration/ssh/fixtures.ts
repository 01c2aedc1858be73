// Commands that exist only in tests, registered next to the real ones.
import type { ServiceDeps } from '../../../src/service/deps.js';
import type { CommandDefinition } from '../../../src/service/dispatch/types.js';

/**
 * Says `running`, then runs until it is cancelled, as `ssh <vm> sleep 100` would: it shows
 * what Ctrl-C, a lost client or a shutdown does to a running command.
 */
export const runUntilCancelled: CommandDefinition<ServiceDeps> = {
  path: 'run-until-cancelled',
  description: 'Runs until cancelled (test only)',
  usage: 'run-until-cancelled',
  flags: [],
  args: [],
  examples: [],
  mutates: false,
  run: async (ctx) => ({
    kind: 'stream',
    vm: 'test',
    start: (sink) =>
      new Promise((_, reject) => {
        void sink.write(Buffer.from('running\n'));
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
      }),
  }),
};
