// A machine VM's network (backend.ts): slirp4netns is its first backend.
export type { InboundListener, NetworkPipes, VmNetworkLink } from './backend.js';
export { inboundRelays, slirpCommand, SlirpNetwork, type NetworkTools } from './slirp4netns.js';
export { loadNetworkWall, WALL_TABLE } from './host-wall.js';
