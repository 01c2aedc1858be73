# snapshot-base.sh: fills a folder with the base system's snapshot (sandbox/base-system.ts),
# as host root in the host's mount namespace, on host files only.
# Argument, ours: $1 the folder to fill.
# A file or folder that "others" cannot read stays out (with what is below it), exactly what
# an unprivileged host user cannot see today; symlinks are copied as symlinks.
set -e
out=$1
cd /
find etc var/lib var/cache/debconf \
  \( -path var/lib/exectl -o -path var/lib/apt/lists -o -path etc/machine-id \
     -o -path etc/hostname -o -path etc/resolv.conf \) -prune -o \
  \( -type d ! -perm -o=rx -o ! -type d ! -type l ! -perm -o=r \) -prune -o -print0 2>/dev/null |
  tar --null --no-recursion -T - -cf - | tar -xf - -C "$out"
cd "$out"
awk -F: '{ print $1 ":*:19000:0:99999:7:::" }' etc/passwd > etc/shadow
awk -F: '{ print $1 ":*::" }' etc/group > etc/gshadow
chmod 640 etc/shadow etc/gshadow
chgrp shadow etc/shadow etc/gshadow 2>/dev/null || true
# slirp4netns' own DNS forwarder: every VM's network has it (network/slirp4netns.ts).
printf 'nameserver 10.0.2.3\n' > etc/resolv.conf
mkdir -p root home opt srv mnt media run proc dev sys tmp usr \
  var/log var/tmp var/mail var/spool var/local var/opt var/backups \
  var/cache/apt/archives/partial var/lib/apt/lists/partial
chmod 700 root
chmod 1777 tmp var/tmp
ln -sfn /run var/run
ln -sfn /run/lock var/lock
if id _apt >/dev/null 2>&1; then
  chown _apt:root var/cache/apt/archives/partial var/lib/apt/lists/partial
  chmod 700 var/cache/apt/archives/partial var/lib/apt/lists/partial
fi
# The client's mount points (clientMountArgs), so binding them writes nothing in a VM's disk.
mkdir -p ./opt/exectl/bin ./opt/exectl/package
: > ./opt/exectl/node
