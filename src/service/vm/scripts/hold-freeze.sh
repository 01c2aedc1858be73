# hold-freeze.sh: holds a VM's file system frozen while `cp` copies its image (disk/freeze.ts),
# run by nsenter in the VM launcher's mount namespace, as host root. Prints "frozen" once
# frozen, then thaws when its stdin ends (the server said so, or the server died).
# Arguments, all ours: $1 fsfreeze's path, $2 the mount point.
# The server's signals (a terminal's ^C reaches its whole group) and a server gone before
# reading "frozen" must not end the holder before it thaws.
trap '' HUP INT PIPE
"$1" --freeze "$2" || exit 125
echo frozen
cat > /dev/null
exec "$1" --unfreeze "$2"
