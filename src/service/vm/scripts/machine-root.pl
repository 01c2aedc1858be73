# machine-root.pl: mounts a machine VM's disk and root file system, then execs the command
# that runs bwrap (why: below). Run by launch-machine.sh as `perl -e`, as host root, in a
# mount namespace of its own.
# Arguments, all ours: IMAGE HOLDER DISK MARKER BASE VMRUN SNAPSHOT LOWER FOLDER... -- COMMAND...
#   IMAGE the disk image; HOLDER the pid holding the VM's namespaces; DISK the image's mount
#   point; MARKER the layout marker file; BASE the VM's first host id; VMRUN the VM's run
#   folder; SNAPSHOT the base system (or an image's root file system); LOWER the pid whose user
#   namespace maps SNAPSHOT's owners onto the VM's ids (HOLDER for the base system; another,
#   ended here once mounted, for an image); FOLDER... the host's system folders (none for an
#   image); COMMAND... enters the holder's namespaces and runs bwrap.
#
# A machine VM's root file system (SPEC §4): overlayfs, copy-on-write. The lower layers are the
# host's base system (base-system.ts) seen through idmapped mounts, so that the host's root
# appears as the VM's root and every host id as the same id of the VM's range: root inside
# owns /usr and /etc as on any machine, and `dpkg` and `apt-get` can replace their files. The
# upper layers live in the VM's disk image, so what is installed survives restarts; `rm`
# deletes them with the image. The host's files themselves never change: overlayfs writes
# only to the upper layer, and the lower mounts are reachable only from the launcher.
#
# Mounts the VM's disk and root file system, all of it in one process (each program the
# launcher starts delays the VM's boot):
# 0. the disk image on a free loop device (LOOP_CONFIGURE, Linux ≥ 5.8; autoclear: the kernel
#    detaches it once the image is unmounted), mounted `nodev,noatime` at DISK. mount(8) did
#    this in 25 ms, of which the system calls take 4: the rest is loading libmount and
#    libblkid;
# 1. at the first boot, the disk's layers: `overlay/<layer>/{upper,work}`, the uppers owned by
#    the VM's root; an older image's files move into the new home `overlay/root/upper/root`
#    (renames, never following a symlink the VM made), and the marker is written;
# 2. for each layer, an idmapped copy of its lower folder (Linux ≥ 5.12 for the mount, ≥ 5.19
#    for overlayfs on it): open_tree(2) a detached clone, mount_setattr(2) MOUNT_ATTR_IDMAP
#    with the VM's user namespace, move_mount(2) it into the VM's run folder; then the overlay
#    with fsopen(2), fsconfig(2) and fsmount(2) (`nodev`), at `<run folder>/root`.
# Its descriptors are close-on-exec and end with it (no POSIX module: loading it would cost
# more than all the rest). Perl (Debian's essential perl-base) makes the system calls, all of the new mount API, whose
# numbers are the same on every Linux architecture; util-linux gained `mount -o X-mount.idmap`
# only in 2.39 (Debian 12 has 2.38). The loop ioctls' numbers and struct layout are the same on
# every architecture too.
# 3. it execs the command that enters the holder's namespaces and runs bwrap (nsenter, given
#    --target=HOLDER).
use strict;
my ($image, $holder, $disk, $marker, $base, $vmrun, $snapshot, $lower, @rest) = @ARGV;
my @folders;
push(@folders, shift(@rest)) while @rest && $rest[0] ne "--";
shift(@rest);
my ($enter, @command) = @rest;
my $ns = "/proc/$holder/ns/user";
my $layers = "$disk/overlay";
my $none = "";
sub fail { die "exectl: $_[0]: $!\n" }

sub attach_loop {
  open(my $file, "+<", $image) or fail("open $image");
  open(my $control, "+<", "/dev/loop-control") or fail("open /dev/loop-control");
  # struct loop_config: fd, block_size, loop_info64 (lo_flags = LO_FLAGS_AUTOCLEAR), reserved.
  my $config = pack("L L Q5 L4 a64 a64 a32 Q2 Q8",
    fileno($file), 0, (0) x 5, 0, 0, 0, 4, substr($image, -63), "", "", (0) x 10);
  for (1 .. 50) {
    my $n = ioctl($control, 0x4C82, 0);
    defined $n or fail("no free loop device");
    my $device = "/dev/loop" . ($n + 0);
    open(my $loop, "+<", $device) or fail("open $device");
    # Kept open until mounted: autoclear detaches a device no one holds.
    return ($device, $loop) if ioctl($loop, 0x4C0A, $config);
    # EBUSY: another process took that device first; ask again.
    ($! + 0) == 16 or fail("attach $image to $device");
  }
  fail("no free loop device");
}
my ($device, $loop) = attach_loop();
my ($ext4, $source) = ("ext4", "source");
my $fs = syscall(430, $ext4, 1);
fail("fsopen ext4") if $fs < 0;
syscall(431, $fs, 1, $source, $device, 0) == 0 or fail("ext4 source=$device");
syscall(431, $fs, 6, 0, 0, 0) == 0 or fail("mount $device");
my $mounted = syscall(432, $fs, 1, 0x14);
fail("fsmount $device") if $mounted < 0;
syscall(429, $mounted, $none, -100, $disk, 4) == 0 or fail("move_mount $disk");
close($loop);
sub folder { my ($path, $mode) = @_; -d $path or mkdir($path, $mode) or fail("mkdir $path") }
sub layer {
  my ($under, $name) = @_;
  return if -d "$under/$name/upper";
  folder("$under/$name", 0755); folder("$under/$name/work", 0755); folder("$under/$name/upper", 0755);
  chown($base, $base, "$under/$name/upper") or fail("chown $name");
}
# mkfs made lost+found as the host's root: the VM would see nobody's folder in its home.
my $lost = "$disk/lost+found";
-d $lost and !-l $lost and (rmdir($lost) or fail("rmdir $lost"));
if (!-e $marker) {
  # A fresh name: were it the VM's, mkdir fails and the VM does not boot (it hurts only itself).
  my $new = "$disk/.exectl-layers-$$";
  mkdir($new, 0755) or fail("mkdir $new");
  layer($new, "root");
  my $home = "$new/root/upper/root";
  folder($home, 0700);
  opendir(my $top, $disk) or fail("read $disk");
  for my $name (readdir $top) {
    next if $name eq "." || $name eq ".." || "$disk/$name" eq $new;
    rename("$disk/$name", "$home/$name") or fail("move $name");
  }
  chown($base, $base, $home) or fail("chown home");
  rename($new, $layers) or fail("rename $new");
  open(my $m, ">", $marker) or fail("write $marker"); close($m);
}
folder($layers, 0755);
layer($layers, $_) for ("root", @folders);
# The VM's /root, made again if the VM removed it. It is the VM's to change: whatever it made
# there (a symlink to a host folder, say) is never followed, only left as it is. No process of
# the VM runs while this does, so nothing changes it between the lstat and the chown.
my $home = "$layers/root/upper/root";
if (!lstat($home)) {
  mkdir($home, 0700) or fail("mkdir $home");
  chown($base, $base, $home) or fail("chown $home");
}
# The mount points of the boot (bwrap's) are ours: where the VM made something else at one (a
# symlink, a file, the whiteout of a removal, after unmounting what was there), it goes, never
# followed, and the base system's folder shows again. bwrap would follow a symlink there, out
# of the VM's root, and fail. /opt/exectl, where the client is shown, goes whole: the VM's
# files cannot be seen there anyway.
my $upper = "$layers/root/upper";
sub remove_tree {
  my ($path) = @_;
  lstat($path) or return;
  if (!-d _) { unlink($path) or fail("unlink $path"); return }
  opendir(my $dir, $path) or fail("read $path");
  my @names = grep { $_ ne "." && $_ ne ".." } readdir($dir);
  closedir($dir);
  remove_tree("$path/$_") for @names;
  rmdir($path) or fail("rmdir $path");
}
for my $point ("proc", "dev", "tmp", "run", "opt") {
  lstat("$upper/$point") && !-d _ and (unlink("$upper/$point") or fail("unlink $upper/$point"));
}
remove_tree("$upper/opt/exectl");

open(my $nsfh, "<", $ns) or fail("user namespace $ns");
open(my $lowerfh, "<", "/proc/$lower/ns/user") or fail("user namespace of $lower");
my $attr = pack("QQQQ", 0x100000, 0, 0, fileno($nsfh));
my $lowerattr = pack("QQQQ", 0x100000, 0, 0, fileno($lowerfh));
folder("$vmrun/lower", 0755); folder("$vmrun/root", 0755);
sub idmapped {
  my ($src, $dst, $map) = @_;
  folder($dst, 0755);
  my $fd = syscall(428, -100, $src, 0x80001);
  fail("open_tree $src") if $fd < 0;
  syscall(442, $fd, $none, 0x1000, $map, length $map) == 0 or fail("idmapped mount of $src");
  syscall(429, $fd, $none, -100, $dst, 4) == 0 or fail("move_mount $dst");
}
sub overlay {
  my ($name, $lower, $target) = @_;
  my $type = "overlay";
  my $fs = syscall(430, $type, 1);
  fail("fsopen overlay") if $fs < 0;
  my %options = (source => "exectl-$name", lowerdir => $lower,
    upperdir => "$layers/$name/upper", workdir => "$layers/$name/work");
  for my $key (sort keys %options) {
    my ($k, $v) = ($key, $options{$key});
    syscall(431, $fs, 1, $k, $v, 0) == 0 or fail("overlay $key=$v");
  }
  syscall(431, $fs, 6, 0, 0, 0) == 0 or fail("overlay on $target");
  my $mnt = syscall(432, $fs, 1, 4);
  fail("fsmount $target") if $mnt < 0;
  syscall(429, $mnt, $none, -100, $target, 4) == 0 or fail("move_mount $target");
}
idmapped($snapshot, "$vmrun/lower/base", $lowerattr);
overlay("root", "$vmrun/lower/base", "$vmrun/root");
# The image's holder is needed no more: the mount keeps its own reference to the namespace.
kill("KILL", $lower) if $lower ne $holder;
for my $f (@folders) {
  idmapped("/$f", "$vmrun/lower/$f", $attr);
  overlay($f, "$vmrun/lower/$f", "$vmrun/root/$f");
}
exec { $enter } $enter, "--target=$holder", @command;
fail("exec $enter");
