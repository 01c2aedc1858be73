// The face of vm/disk/: what the other rooms of vm/ use of it.
export { CopiesUnderWay } from './copies-under-way.js';
export { copyFolderDisk, copyMachineDisk } from './copy.js';
export { assertDiskExists, createDisk, removeDisk } from './folder-disk.js';
export { ImageTemplates } from './image-template.js';
export {
  IMAGE_NAME,
  LAYOUT_MARKER,
  createImage,
  hasImage,
  imageFootprint,
  imageSize,
  imageUsage,
  minimumImageSize,
  resizeImageOffline,
  type DiskTools,
} from './image.js';
export { DiskWatchdog, type MountedDisk } from './watchdog.js';
