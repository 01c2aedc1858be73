# fill-image.sh: moves an older exectl's folder disk into its new image (disk/image.ts). Run by
# unshare in a mount namespace of its own (gone when this ends), as host root: mounts the
# image, copies the old folder into it as it is (symlinks as symlinks, never followed), and
# gives every file to the VM's root.
# Arguments, all ours: $1 the image, $2 its mount point, $3 the old folder, $4 the VM's root
# (its first host id).
mount -o loop,nodev "$1" "$2" && cp -a "$3"/. "$2"/ && chown -R -h "$4:$4" "$2" && umount "$2"
