# private-tun.sh: gives a VM's slirp4netns (network/slirp4netns.ts) a /dev/net/tun it may open,
# run by /bin/sh as host root in a mount namespace of its own (`unshare --mount`), where it
# then execs its arguments (setpriv … slirp4netns …). slirp4netns opens /dev/net/tun as the
# VM's network helper id, from inside the VM's namespaces; a host whose node is root's alone
# (0600: no udev rule, as on minimal or container-like hosts) refuses it that. Here a tmpfs on
# /dev/net holds a node of the same device open to all, as udev's own rule makes it (0666):
# opening it grants nothing by itself (making an interface needs CAP_NET_ADMIN in the network
# namespace), and the host's /dev is left as it is.
# Arguments: the command to run (ours: slirp4netns.ts builds it).
mount -t tmpfs -o mode=0755,size=16k,nosuid,noexec exectl-tun /dev/net || exit 125
mknod -m 0666 /dev/net/tun c 10 200 || exit 125
exec "$@"
