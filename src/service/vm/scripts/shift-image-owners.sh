# shift-image-owners.sh: mounts a copied disk image where nothing else sees it (run by unshare
# in a private mount namespace of its own, as host root, so nothing can change the tree
# meanwhile), gives its files to the copy's id range with shift-owners.pl, and unmounts it.
# Arguments, all ours: $1 the image, $2 its mount point, $3 perl, $4 the program of
# shift-owners.pl (its text), $5 the source's first host id, $6 the copy's, $7 how many ids.
mount -t ext4 -o loop,nodev,nosuid,noatime "$1" "$2" || exit 125
"$3" -e "$4" "$2" "$5" "$6" "$7"; walked=$?
umount "$2" || exit 125
exit $walked
