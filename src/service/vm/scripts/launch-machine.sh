# launch-machine.sh: boots one machine VM (machine/machine-boot.ts), run by /bin/sh as host root.
# Arguments, all ours (launcher-argv.ts builds them):
#   $1 image     the VM's disk image
#   $2 disk      the image's mount point
#   $3 base      the first host id of the VM's range
#   $4 ids       how many ids the range holds
#   $5 unshare   $6 perl  (paths of the tools)
#   $7 root_perl the program of machine-root.pl (its text)
#   $8 marker    the layout marker file
#   $9 snapshot  the base system
#   $10 vmrun    the VM's run folder
#   $11 folders  the host's system folders, one word, space-separated
#   $12 lowerids the first host id of the lower layer's owners, `-` for the base system (an
#       image of the image cache is owned by the cache's own range: image/unpack.ts)
#   then: the number of the VM's cgroup files and the files;
#   then: networds netpipes: how many words the network program has, and how many pipes to
#       the server it gets; then its words (vm/network/ says what they are: this script does not;
#       a word `{holder}` stands for the pid of the process that holds the VM's namespaces);
#   last: the command that enters the holder's namespaces (given --target=) and runs bwrap.
# Descriptors (launcher-argv.ts LAUNCHER_FD; 3 is bwrap's info fd): 4 launched (the holder's
# pid is written there); 5 up to 4+netpipes the network program's pipes, handed to it as they
# are, the last one also as its stderr.
#
# 0. it joins the VM's cgroups: everything it starts from here (the holder, the network program,
#    bwrap and the VM) counts against the VM's limits, its network helper's CPU included;
# 1. a holder makes the VM's user and network namespaces and sleeps in them (long enough for
#    bwrap to join on a busy machine, then bwrap reaps it); once /proc shows it in a user
#    namespace other than ours, the launcher writes the id maps: 0…ids-1 inside = base… outside
#    (util-linux's `unshare --map-users` needs /etc/subuid entries; root may write the maps);
#    for an image, a second holder's user namespace maps the cache's range onto the VM's, for
#    the idmapped mount of the image (machine-root.pl ends that holder once mounted);
# 2. it starts the VM's network program (vm/network/'s backend: slirp4netns as the VM's own
#    network helper id, every host address refused to it by network/host-wall.ts's rule) for
#    the holder's namespaces;
#    it stays in the server's mount namespace: it may not hold the VM's disk mounted once the
#    VM has stopped;
# 3. it tells the server the holder's pid (the server makes the VM's listeners inside its
#    network namespace);
# 4. in a mount namespace of its own, perl (machine-root.pl) mounts the image on the mount
#    point and the VM's root file system at <run folder>/root, then execs the command that
#    runs bwrap.
# The holder gets none of the server's pipes; the network program only its own.
image=$1 disk=$2 base=$3 ids=$4 unshare=$5 perl=$6 root_perl=$7 marker=$8 snapshot=$9
vmrun=${10} folders=${11} lowerids=${12}
shift 12
cgroups=$1; shift
while [ "$cgroups" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; cgroups=$((cgroups - 1)); done
networds=$1 netpipes=$2
shift 2
top=$((4 + netpipes))
# Closes this shell's descriptors $1 up to $2 (numbers of ours: eval sees digits only).
close_fds() {
  fd=$1
  while [ "$fd" -le "$2" ]; do eval "exec $fd>&-"; fd=$((fd + 1)); done
}
( close_fds 3 "$top"; exec "$unshare" --user --net -- sleep 60 ) </dev/null >/dev/null 2>&1 &
holder=$!
# dash, the /bin/sh of Debian and Ubuntu, has -ef (as bash and busybox do).
# shellcheck disable=SC3013
while [ "/proc/$holder/ns/user" -ef "/proc/$$/ns/user" ]; do :; done
map="0 $base $ids"
echo "$map" > "/proc/$holder/uid_map" && echo "$map" > "/proc/$holder/gid_map" || exit 125
lower=$holder
if [ "$lowerids" != - ]; then
  ( close_fds 3 "$top"; exec "$unshare" --user -- sleep 60 ) </dev/null >/dev/null 2>&1 &
  lower=$!
  # shellcheck disable=SC3013
  while [ "/proc/$lower/ns/user" -ef "/proc/$$/ns/user" ]; do :; done
  map="$lowerids $base $ids"
  echo "$map" > "/proc/$lower/uid_map" && echo "$map" > "/proc/$lower/gid_map" || exit 125
fi
# The network program: the first $networds words, the word {holder} replaced by the holder's pid.
(
  close_fds 3 4
  total=$#; i=0
  for word do
    if [ "$word" = '{holder}' ]; then word=$holder; fi
    if [ "$i" -lt "$networds" ]; then set -- "$@" "$word"; fi
    i=$((i + 1))
  done
  shift "$total"
  eval "exec \"\$@\" 2>&$top"
) </dev/null >/dev/null &
shift "$networds"
close_fds 5 "$top"
echo "$holder" >&4; exec 4>&-
# $folders is several words on purpose: one argument per folder.
# shellcheck disable=SC2086
exec "$unshare" --mount --propagation private -- "$perl" -e "$root_perl" \
  "$image" "$holder" "$disk" "$marker" "$base" "$vmrun" "$snapshot" "$lower" $folders -- "$@"
