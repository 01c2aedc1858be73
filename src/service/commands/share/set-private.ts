import { visibilityCommand } from '../shared/share-visibility.js';

/** `share set-private <vm>` — the VM's address needs a VM token again (owner only). */
export const shareSetPrivateCommand = visibilityCommand(
  'private',
  "Require a VM token for your VM's address again (owner only)",
);
