import { createHash } from 'node:crypto';

/**
 * The emojis a VM can get. Each is ONE astral code point with no variation selector, so
 * `Array.from` splits the string right, and every emoji is two UTF-16 units and two terminal
 * columns wide, which keeps text tables aligned.
 */
export const VM_EMOJIS: readonly string[] = Array.from(
  '🐙🦊🐢🦉🐝🦀🐬🦄🐧🐳🦋🐞🌵🍄🌻🍀🚀🛸🎈🎲🧩🪁🔭🧪💎🔥🌊🌙🍉🍋🥑🧊',
);

/**
 * The emoji of a new VM, derived from its name so that the same name always looks the same
 * (in tests too); it is stored with the VM and kept when the VM is renamed.
 */
export function emojiFor(vmName: string): string {
  const index = createHash('sha256').update(vmName).digest().readUInt32BE(0) % VM_EMOJIS.length;
  return VM_EMOJIS[index]!;
}
