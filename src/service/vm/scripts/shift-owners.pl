# shift-owners.pl: gives a copied disk's files to the copy's id range (disk/copy.ts), as host
# root, never following a symlink (lstat, POSIX::lchown; chmod only on what is not a symlink).
# chown clears set-id bits, which are put back. Owners outside the source's range stay.
# Arguments, all ours: ROOT FROM TO COUNT
#   ROOT the copy's mounted image; FROM the source's first host id; TO the copy's; COUNT ids.
use strict;
use POSIX ();
my ($root, $from, $to, $count) = @ARGV;
sub moved { my $id = shift; $id >= $from && $id < $from + $count ? $id - $from + $to : $id }
my @todo = ($root);
while (defined(my $path = pop @todo)) {
  my @st = lstat($path) or die "exectl: lstat $path: $!\n";
  my ($uid, $gid) = (moved($st[4]), moved($st[5]));
  if ($uid != $st[4] || $gid != $st[5]) {
    POSIX::lchown($uid, $gid, $path) or die "exectl: lchown $path: $!\n";
    if (($st[2] & 06000) && !-l _) { chmod($st[2] & 07777, $path) or die "exectl: chmod $path: $!\n" }
  }
  next unless -d _;
  opendir(my $dir, $path) or die "exectl: read $path: $!\n";
  push @todo, map { "$path/$_" } grep { $_ ne "." && $_ ne ".." } readdir($dir);
  closedir($dir);
}
