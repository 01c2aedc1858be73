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
#   $12 slirp    the command that starts slirp4netns, one word of several, space-separated
#                (setpriv's words that make it the VM's network helper id, then its path)
#   $13 nsenter  $14 setpriv  $15 socat  (paths of the tools)
#   then: the number of relays and their socat address pairs (listen, connect);
#   then: the number of the VM's cgroup files and the files;
#   last: the command that enters the holder's namespaces (given --target=) and runs bwrap.
# Descriptors (launcher-argv.ts LAUNCHER_FD; 3 is bwrap's info fd): 4 launched (the holder's
# pid then the relays' are written there), 5 slirp4netns ready, 6 slirp4netns exit, 7
# slirp4netns' messages.
#
# 1. a holder makes the VM's user and network namespaces and sleeps in them (long enough for
#    bwrap to join on a busy machine, then bwrap reaps it); once /proc shows it in a user
#    namespace other than ours, the launcher writes the id maps: 0…ids-1 inside = base… outside
#    (util-linux's `unshare --map-users` needs /etc/subuid entries; root may write the maps);
# 2. it starts the VM's network: slirp4netns (outbound NAT, the host's loopback cut off; every
#    host address refused to it by the host's rule on its id, network/host-wall.ts) and one
#    socat relay per listener of the server, listening at the listener's host address inside
#    the VM's network namespace and carrying connections to its unix socket. A relay runs as
#    the VM's base id (the host id of the VM's root, whose processes live in a pid namespace
#    where no relay is seen; not `nobody`, which any host daemon may run as and could ptrace a
#    relay with) and dies with its parent, this process, which becomes the VM's bwrap: the
#    relays end with the VM. Both stay in the server's cgroups and its mount namespace: none of
#    them may hold the VM's disk mounted once the VM has stopped;
# 3. it tells the server the holder's pid (the server waits for the relays to listen there)
#    and the relays' (a launcher that dies before a relay has asked for PDEATHSIG leaves that
#    relay running: the server ends it), and joins the VM's cgroups;
# 4. in a mount namespace of its own, perl (machine-root.pl) mounts the image on the mount
#    point and the VM's root file system at <run folder>/root, then execs the command that
#    runs bwrap.
# Every helper started here gets none of the server's pipes.
image=$1 disk=$2 base=$3 ids=$4 unshare=$5 perl=$6 root_perl=$7 marker=$8 snapshot=$9
vmrun=${10} folders=${11} slirp=${12} nsenter=${13} setpriv=${14} socat=${15} relays=${16}
shift 16
"$unshare" --user --net -- sleep 60 </dev/null >/dev/null 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- &
holder=$!
# dash, the /bin/sh of Debian and Ubuntu, has -ef (as bash and busybox do).
# shellcheck disable=SC3013
while [ "/proc/$holder/ns/user" -ef "/proc/$$/ns/user" ]; do :; done
map="0 $base $ids"
echo "$map" > "/proc/$holder/uid_map" && echo "$map" > "/proc/$holder/gid_map" || exit 125
# $slirp is several words on purpose (see above).
# shellcheck disable=SC2086
$slirp --configure --mtu=65520 --disable-host-loopback --enable-sandbox --enable-seccomp \
  --ready-fd=5 --exit-fd=6 "$holder" tap0 </dev/null >/dev/null 2>&7 3>&- 4>&- &
pids=$holder
while [ "$relays" -gt 0 ]; do
  "$nsenter" --target="$holder" --net -- "$setpriv" --reuid="$base" --regid="$base" --clear-groups \
    --no-new-privs --pdeathsig=SIGKILL -- "$socat" "$1" "$2" \
    </dev/null >/dev/null 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- &
  pids="$pids $!"; shift 2; relays=$((relays - 1))
done
exec 5>&- 6>&- 7>&-
echo "$pids" >&4; exec 4>&-
cgroups=$1; shift
while [ "$cgroups" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; cgroups=$((cgroups - 1)); done
# $folders is several words on purpose: one argument per folder.
# shellcheck disable=SC2086
exec "$unshare" --mount --propagation private -- "$perl" -e "$root_perl" \
  "$image" "$holder" "$disk" "$marker" "$base" "$vmrun" "$snapshot" $folders -- "$@"
