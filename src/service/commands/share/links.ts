import { commandFailed } from '../../../errors.js';
import { quote } from '../../rules/validate.js';
import { json, type ServiceCommand } from '../shared/command.js';
import { findOwnVm } from '../shared/vm-access.js';
import { httpsUrl } from '../vm-view.js';

interface LinkAddedData {
  status: 'success';
  vm_name: string;
  token: string;
  url: string;
}

interface LinkRemovedData {
  status: 'success';
  vm_name: string;
}

/**
 * `share add-link <vm>` — a link that lets whoever opens it into the VM's site: the proxy
 * answers `<url>?share=<token>` with a cookie for that VM's address only (owner only).
 */
export const shareAddLinkCommand: ServiceCommand = {
  path: 'share add-link',
  description: "Make a link that lets whoever opens it into your VM's site (owner only)",
  usage: 'share add-link <vm>',
  flags: [],
  args: [{ name: 'vm', required: true }],
  examples: ['share add-link web'],
  mutates: true,
  async run(ctx, input) {
    const vm = findOwnVm(ctx, input.args[0] ?? '', 'change its sharing');
    const link = ctx.deps.store.addShareLink(vm.id);
    const data: LinkAddedData = {
      status: 'success',
      vm_name: vm.name,
      token: link.token,
      url: `${httpsUrl(ctx.deps, vm.name)}?share=${link.token}`,
    };
    return json(data);
  },
};

/**
 * `share remove-link <vm> <token>` — the link opens nothing any more, and the cookies it gave
 * stop working at once (owner only).
 */
export const shareRemoveLinkCommand: ServiceCommand = {
  path: 'share remove-link',
  description: 'Revoke a share link of your VM, and the browsers it let in (owner only)',
  usage: 'share remove-link <vm> <token>',
  flags: [],
  args: [
    { name: 'vm', required: true },
    { name: 'token', required: true },
  ],
  examples: ['share remove-link web 3q2-7vXbQ0ymW1r8Ttk5Xg'],
  mutates: true,
  async run(ctx, input) {
    const [name = '', token = ''] = input.args;
    const vm = findOwnVm(ctx, name, 'change its sharing');
    if (!ctx.deps.store.removeShareLink(vm.id, token)) {
      throw commandFailed(`share link ${quote(token)} of vm ${quote(vm.name)} not found`, {
        hint: `run "share show ${vm.name}" to list its links`,
      });
    }
    const data: LinkRemovedData = { status: 'success', vm_name: vm.name };
    return json(data);
  },
};
