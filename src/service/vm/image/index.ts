// The face of vm/image/: pulling OCI images into the server's image cache (SPEC §4a).
export type { RegistrySettings } from './registries.js';
export { ImageCache } from './image-cache.js';
export type { ImageConfig } from './image-config.js';
export { PullFailed, type ImageTools } from './skopeo.js';
export { bootImage, serviceWords, type VmImageSpec } from './boot-image.js';
