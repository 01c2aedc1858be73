import { shareUsersCommand } from '../shared/share-users.js';

/** `share remove <vm> <email>` — stop sharing one of your VMs with a user (owner only). */
export const shareRemoveCommand = shareUsersCommand(
  'remove',
  'Stop sharing one of your VMs with a user (owner only)',
  'share remove web ada@example.com',
);
