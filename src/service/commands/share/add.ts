import { shareUsersCommand } from '../shared/share-users.js';

/** `share add <vm> <email>` — let another user see and use one of your VMs (owner only). */
export const shareAddCommand = shareUsersCommand(
  'add',
  'Share one of your VMs with another user by email (owner only)',
  'share add web ada@example.com',
);
