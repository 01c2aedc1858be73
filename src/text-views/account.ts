// Text views of the account commands (SPEC §3): whoami, ssh-key ..., svc0-to-svc1, team ....
import { optionalCell, textRecord, textTable } from './table.js';
import { view } from './view.js';

/** An account's region (`set-region`, `whoami`). */
export interface RegionData {
  region: string;
  region_display: string;
}

export const whoamiView = view<
  {
    email: string;
    user_id: string;
    ssh_keys: { name: string; fingerprint: string; current: boolean }[];
  } & Partial<RegionData>
>((data, _flags, width) => {
  const keys = data.ssh_keys.map((k) => [k.current ? '*' : '', k.name, k.fingerprint]);
  const fields: [string, string][] = [
    ['email', data.email],
    ['user id', data.user_id],
  ];
  // Absent from a server older than regions.
  if (data.region !== undefined) fields.push(['region', regionText(data as RegionData)]);
  return (
    textRecord(fields) + '\n' + textTable(['', 'name', 'fingerprint'], keys, 'no ssh keys', width)
  );
});

/** `set-region`: the region chosen. */
export const setRegionView = view<RegionData>(
  (data) => `Region of your next VMs: ${regionText(data)}\n`,
);

function regionText(data: RegionData): string {
  return `${data.region} (${data.region_display})`;
}

/** `browser`: the link, on a line of its own so that a terminal makes it clickable. */
export const browserView = view<{ magic_link: string }>(
  (data) =>
    `Open this link to sign in to the dashboard (once, within 15 minutes):\n  ${data.magic_link}\n`,
);

interface KeyEntry {
  name: string;
  fingerprint: string;
  added_at: string;
  last_used_at: string | null;
  current: boolean;
  /** Absent from a server older than tag-scoped keys. */
  tag?: string | null;
}

export const sshKeyListView = view<{ ssh_keys: KeyEntry[] }>((data, _flags, width) => {
  const rows = data.ssh_keys.map((k) => [
    k.current ? '*' : '',
    k.name,
    k.fingerprint,
    k.added_at,
    optionalCell(k.last_used_at),
    optionalCell(k.tag ?? null),
  ]);
  return textTable(
    ['', 'name', 'fingerprint', 'added', 'last used', 'tag'],
    rows,
    'no ssh keys',
    width,
  );
});

export const sshKeyAddView = view<{ name: string; fingerprint: string }>(
  (data) => `added ssh key ${data.name} (${data.fingerprint})\n`,
);

export const sshKeyRemoveView = view<{ name: string; fingerprint: string }>(
  (data) => `removed ssh key ${data.name} (${data.fingerprint})\n`,
);

export const sshKeyRenameView = view<{ old_name: string; new_name: string }>(
  (data) => `renamed ssh key ${data.old_name} to ${data.new_name}\n`,
);

export const apiKeyView = view<{
  label: string;
  token: string;
  namespace: string;
  fingerprint: string;
  expires_at: string | null;
}>((data) =>
  textRecord([
    ['token', data.token],
    ['label', data.label],
    ['namespace', data.namespace],
    ['fingerprint', data.fingerprint],
    ['expires', data.expires_at ?? 'never'],
  ]),
);

/** `svc0-to-svc1`: just the token, ready to copy. */
export const svc1View = view<{ token: string }>((data) => `${data.token}\n`);

interface InvitationRow {
  team: string;
  owner: string;
  invited_at: string;
}

function invitationLines(invitations: readonly InvitationRow[]): string {
  return invitations
    .map((i) => `invited to ${i.team} at ${i.invited_at}: team accept ${i.owner}\n`)
    .join('');
}

export const teamView = view<{
  team: { name: string; owner: string; members: number };
  role: string;
  /** Absent from a server older than team invitations. */
  invitations?: InvitationRow[];
}>(
  (data) =>
    textRecord([
      ['team', data.team.name],
      ['owner', data.team.owner],
      ['members', String(data.team.members)],
      ['your role', data.role],
    ]) + invitationLines(data.invitations ?? []),
);

/** `team members`, `team add` and `team remove`: the members, owner first, then the invited. */
export const membersView = view<{
  members: { email: string; role: string; joined_at: string | null; invited_at?: string }[];
}>((data, _flags, width) => {
  // SINCE: when a member joined, or when an invited account was invited (its role says which).
  const rows = data.members.map((m) => [m.email, m.role, m.joined_at ?? m.invited_at ?? '']);
  return textTable(['email', 'role', 'since'], rows, 'no members', width);
});

/** `team decline`: the invitations left. */
export const invitationsView = view<{ invitations: InvitationRow[] }>((data) =>
  data.invitations.length === 0 ? 'no invitations\n' : invitationLines(data.invitations),
);

export const leaveView = view<unknown>(() => 'left the team\n');
