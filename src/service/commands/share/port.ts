import { commandFailed } from '../../../errors.js';
import { servicePorts } from '../../deps.js';
import { json, type ServiceCommand } from '../shared/command.js';
import { parsePort } from '../../rules/validate.js';
import { findOwnVm } from '../shared/vm-access.js';

interface SharePortData {
  vm_name: string;
  port: number;
}

/**
 * `share port <vm> [port]` — owner only. With a port (1024–65535): the VM's default port, the
 * one its public address forwards to, becomes that port (never one of the service's own
 * listeners). Without: shows the current one.
 */
export const sharePortCommand: ServiceCommand = {
  path: 'share port',
  description: "Show or set the port your VM's address forwards to (owner only; 1024-65535)",
  usage: 'share port <vm> [port]',
  flags: [],
  args: [
    { name: 'vm', required: true },
    { name: 'port', required: false },
  ],
  examples: ['share port web', 'share port web 3000'],
  mutates: true,
  async run(ctx, input) {
    const [name = '', portText] = input.args;
    const what = portText === undefined ? 'see its sharing' : 'change its sharing';
    let vm = findOwnVm(ctx, name, what);
    if (portText !== undefined) {
      const port = parsePort(portText);
      if (servicePorts(ctx.deps.endpoints).has(port)) {
        throw commandFailed(`port ${port} is one of exectl's own listeners: choose another`);
      }
      vm = ctx.deps.store.setDefaultPort(vm.id, port);
    }
    const data: SharePortData = { vm_name: vm.name, port: vm.defaultPort };
    return json(data);
  },
};
