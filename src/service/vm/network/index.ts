// A machine VM's network (machine-network.ts): a backend (backend.ts) for outbound access,
// slirp4netns its first, and the door into its namespace; the host network's loopback for VMs
// that share it.
export type { InboundListener, LauncherNetwork, NetworkBackendLink } from './backend.js';
export { connectLoopback } from './loopback.js';
export { MachineNetwork } from './machine-network.js';
export { SlirpLink, type SlirpTools } from './slirp4netns.js';
export { loadNetworkWall, WALL_TABLE } from './host-wall.js';
export { GATEWAY_ADDRESS } from './link-local.js';
