import { visibilityCommand } from '../shared/share-visibility.js';

/** `share set-public <vm>` — anyone may open the VM's address, no token needed (owner only). */
export const shareSetPublicCommand = visibilityCommand(
  'public',
  "Let anyone open your VM's address without a token (owner only)",
);
