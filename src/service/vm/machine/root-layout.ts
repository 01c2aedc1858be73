// A machine VM's root file system (SPEC §4): overlayfs, copy-on-write. The lower layers are the
// host's base system (base-system.ts) seen through idmapped mounts, so that the host's root
// appears as the VM's root and every host id as the same id of the VM's range: root inside
// owns /usr and /etc as on any machine, and `dpkg` and `apt-get` can replace their files. The
// upper layers live in the VM's disk image, so what is installed survives restarts; `rm`
// deletes them with the image. The host's files themselves never change: overlayfs writes
// only to the upper layer, and the lower mounts are reachable only from the launcher.

/**
 * Beside the image, in the VM's disk folder (which the VM never reaches): written once the
 * image holds the layers of the VM's root file system (its folder `overlay`). An image without it is an older exectl's, whose top
 * folder was the VM's home, every name in it chosen by the VM: nothing there is trusted, all
 * of it moves into the new home.
 */
export const LAYOUT_MARKER = 'root-layout';

// scripts/machine-root.pl mounts all of it at each boot, in the launcher (its header says how).
