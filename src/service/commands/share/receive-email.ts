import { commandFailed } from '../../../errors.js';
import { json, type ServiceCommand } from '../shared/command.js';
import { findOwnVm } from '../shared/vm-access.js';

interface ReceiveEmailData {
  vm_name: string;
  receive_email: boolean;
}

/**
 * `share receive-email <vm> [on|off]` — owner only (SPEC §4b). `on`: the SMTP listener accepts
 * mail for `*@<vm>.<vm-domain>` and delivers it into the VM's `~/Maildir/new/`; `off` stops
 * that and keeps what was delivered. Without either: shows whether it receives.
 */
export const shareReceiveEmailCommand: ServiceCommand = {
  path: 'share receive-email',
  description: 'Show or set whether your VM receives email at *@<vm>.<vm-domain> (owner only)',
  usage: 'share receive-email <vm> [on|off]',
  flags: [],
  args: [
    { name: 'vm', required: true },
    { name: 'on|off', required: false },
  ],
  examples: ['share receive-email web on', 'share receive-email web'],
  mutates: true,
  async run(ctx, input) {
    const [name = '', setting] = input.args;
    if (setting !== undefined && setting !== 'on' && setting !== 'off') {
      throw commandFailed(`receive-email takes "on" or "off", not ${JSON.stringify(setting)}`, {
        hint: `share receive-email ${name} on`,
      });
    }
    const what = setting === undefined ? 'see its sharing' : 'change its sharing';
    const vm = findOwnVm(ctx, name, what);
    if (setting !== undefined) ctx.deps.store.setReceiveEmail(vm.id, setting === 'on');
    const data: ReceiveEmailData = {
      vm_name: vm.name,
      receive_email: ctx.deps.store.receivesEmail(vm.id),
    };
    return json(data);
  },
};
