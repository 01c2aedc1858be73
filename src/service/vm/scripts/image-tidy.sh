# image-tidy.sh: tidies an image's unpacked root file system before it enters the image cache
# (image/unpack.ts), as host root, on a folder of ours that no VM sees yet.
# Arguments, all ours: $1 the unpacked root file system.
# Device nodes, sockets and fifos go (a VM gets its own /dev from bwrap; a node of the image's
# would be a door to a host device for whoever reaches the cache). find never follows a
# symlink (-P, the default) and stays on the one file system (-xdev).
set -e
find "$1" -xdev \( -type b -o -type c -o -type s -o -type p \) -delete
