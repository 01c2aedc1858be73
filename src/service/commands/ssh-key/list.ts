import { json, type ServiceCommand } from '../shared/command.js';
import { visibleKeys } from './keys.js';

interface KeyEntry {
  name: string;
  fingerprint: string;
  public_key: string;
  added_at: string;
  last_used_at: string | null;
  current: boolean;
  /** The tag the key is scoped to (`generate-api-key --tag`), null when it is not scoped. */
  tag: string | null;
}

interface SshKeyListData {
  ssh_keys: KeyEntry[];
}

/**
 * `ssh-key list` — the caller's keys, oldest first (a tag-scoped key sees only itself); `current` marks the key of this request,
 * `tag` the tag a key is scoped to (null: not scoped).
 * `last_used_at` may lag the real last use by a few seconds (the store buffers it).
 */
export const sshKeyListCommand: ServiceCommand = {
  path: 'ssh-key list',
  description: 'List your SSH keys (current: the key of this request)',
  usage: 'ssh-key list',
  flags: [],
  args: [],
  examples: ['ssh-key list'],
  mutates: false,
  async run(ctx) {
    const { principal } = ctx;
    const data: SshKeyListData = {
      ssh_keys: visibleKeys(ctx).map((key) => ({
        name: key.name,
        fingerprint: key.fingerprint,
        public_key: key.publicKey,
        added_at: key.addedAt,
        last_used_at: key.lastUsedAt,
        current: key.fingerprint === principal.keyFingerprint,
        tag: key.tag,
      })),
    };
    return json(data);
  },
};
