// A machine VM's network (backend.ts): slirp4netns is its first backend.
export type { InboundListener, NetworkPipes, VmNetworkLink } from './backend.js';
export { inboundRelays, SlirpNetwork, type NetworkTools } from './slirp4netns.js';
