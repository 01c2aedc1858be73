// Text views of the commands that open a VM to others (SPEC §3): share ... and integrations ....
import { listCell, optionalCell, textRecord, textTable } from './table.js';
import { view } from './view.js';

interface ShareEntry {
  vm_name: string;
  visibility: string;
  port: number;
  url: string;
  users: { email: string }[];
}

export const shareShowView = view<{ shares: ShareEntry[] }>((data, _flags, width) => {
  const rows = data.shares.map((e) => [
    e.vm_name,
    e.visibility,
    String(e.port),
    e.url,
    listCell(e.users.map((u) => u.email)),
  ]);
  return textTable(['vm', 'visibility', 'port', 'url', 'users'], rows, 'no vms', width);
});

export const sharePortView = view<{ vm_name: string; port: number }>(
  (data) => `${data.vm_name}: port ${data.port}\n`,
);

/** `share set-public` and `share set-private`. */
export const visibilityView = view<{ vm_name: string; visibility: string }>(
  (data) => `${data.vm_name} is ${data.visibility}\n`,
);

/** `share add` and `share remove`: who the VM is shared with now. */
export const shareUsersView = view<{ vm_name: string; users: { email: string }[] }>(
  (data) => `${data.vm_name} is shared with: ${listCell(data.users.map((u) => u.email))}\n`,
);

/** `share add-link` (its URL, to copy) and `share remove-link`. */
export const shareLinkView = view<{ vm_name: string; url?: string }>((data) =>
  data.url === undefined ? `removed the share link of ${data.vm_name}\n` : `${data.url}\n`,
);

export const teamAccessView = view<{ vm_name: string; team_access: string }>(
  (data) => `team ssh access to ${data.vm_name}: ${data.team_access}\n`,
);

/** `share receive-email`: whether the VM takes mail now. */
export const receiveEmailView = view<{ vm_name: string; receive_email: boolean }>(
  (data) => `${data.vm_name} ${data.receive_email ? 'receives' : 'does not receive'} email\n`,
);

interface IntegrationView {
  name: string;
  type: string;
  comment: string;
  target: string | null;
  attachments: string[];
  header_names: string[];
  fields: string[];
}

/** `integrations add`, `rename`, `attach` and `detach`: the integration as it is now. */
export const integrationView = view<IntegrationView>((data) =>
  textRecord([
    ['integration', data.name],
    ['type', data.type],
    ['target', optionalCell(data.target)],
    ['attached', listCell(data.attachments)],
    ['headers', listCell(data.header_names)],
    ...(data.type === 'reflection' ? [['fields', listCell(data.fields)] as [string, string]] : []),
    ['comment', optionalCell(data.comment)],
  ]),
);

/** One integration as `integrations list` answers it: the real service's shape. */
export interface ListedIntegration {
  name: string;
  type: string;
  /** What it is set up with: never a header's value. */
  config: { target: string | null; header_names: string[]; fields?: string[] };
  attachments: string[];
  comment: string;
}

export const integrationListView = view<ListedIntegration[]>((data, _flags, width) =>
  textTable(
    ['name', 'type', 'target', 'attached', 'comment'],
    data.map((i) => [
      i.name,
      i.type,
      optionalCell(i.config.target),
      listCell(i.attachments),
      optionalCell(i.comment),
    ]),
    'no integrations',
    width,
  ),
);

export const integrationRemoveView = view<{ removed: string }>(
  (data) => `removed integration ${data.removed}\n`,
);
