// Every VM's SSH address of its own (SPEC §6a "Host names route SSH"): a loopback address made
// from the VM's id. Ids are never reused (the vms table is AUTOINCREMENT), so an address names
// one VM for its whole life, across renames and restarts, and never another VM afterwards.

/** The first octet after 127 of the range: 127.77.0.1 is VM 1. */
const FIRST_BLOCK = 77;
/** The last: 127.127.255.255, so the range never reaches 127.128.0.0 and above. */
const LAST_BLOCK = 127;
const PER_BLOCK = 1 << 16;
/** The largest id with an address of its own. */
export const MAX_ADDRESSED_VM_ID = (LAST_BLOCK - FIRST_BLOCK + 1) * PER_BLOCK - 1;

/** The VM's own SSH address (`127.77.0.1` for id 1), or undefined for an id past the range. */
export function vmSshAddress(vmId: number): string | undefined {
  if (!Number.isInteger(vmId) || vmId < 1 || vmId > MAX_ADDRESSED_VM_ID) return undefined;
  const block = FIRST_BLOCK + Math.floor(vmId / PER_BLOCK);
  return `127.${block}.${(vmId >> 8) & 0xff}.${vmId & 0xff}`;
}

/**
 * The VM id whose address `address` is (a socket's local address: dotted IPv4, or IPv4 mapped
 * into IPv6 by a dual-stack listener), undefined for any other address.
 */
export function vmIdAtAddress(address: string): number | undefined {
  const match = /^(?:::ffff:)?127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/i.exec(address);
  if (match === null) return undefined;
  const [block, high, low] = match.slice(1).map(Number) as [number, number, number];
  if (block < FIRST_BLOCK || block > LAST_BLOCK || high > 255 || low > 255) return undefined;
  const id = (block - FIRST_BLOCK) * PER_BLOCK + high * 256 + low;
  // Leading zeros or any other spelling than the canonical one is not ours.
  return id >= 1 && vmSshAddress(id) === address.replace(/^::ffff:/i, '') ? id : undefined;
}
