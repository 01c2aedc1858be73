# netns-listen.pl: run by perl inside one VM's network namespace (vm/network/door.ts starts it
# with nsenter --net) as the start of the door's helper at boot. Node takes tens of
# milliseconds to start, perl a few: the listening sockets the VM sees at the server's host
# addresses are made here at once, so that the VM's first command may connect to them (its
# connection waits in the backlog) while node starts; then this execs node (the door's helper,
# netns-door.cjs), which inherits them and hands them to the server when asked.
# Arguments: HOST PORT [HOST PORT...] -- NODE_ARGV... (all ours: the server's listen addresses)
# Output: one line on stdout, a word per listener in order: its descriptor, or `-` for one that
# cannot be made yet (IPv6 loopback before the namespace's loopback is up); then stdout is let go.
# Node learns the descriptors from EXECTL_DOOR_LISTENERS ("host port fd;...").
use strict;
use warnings;
use Fcntl qw(F_GETFD F_SETFD FD_CLOEXEC);
use IO::Socket::IP;

my (@kept, @words, @inherited);
while (@ARGV && $ARGV[0] ne '--') {
  my ($host, $port) = splice(@ARGV, 0, 2);
  # As node listens: SO_REUSEADDR, a backlog of 511.
  my $socket = IO::Socket::IP->new(
    LocalHost => $host,
    LocalPort => $port,
    Proto     => 'tcp',
    Listen    => 511,
    ReuseAddr => 1,
  );
  if (!$socket) {
    push @words, '-';
    next;
  }
  # Kept open across the exec below (perl marks its sockets close-on-exec).
  my $flags = fcntl($socket, F_GETFD, 0) or exit 125;
  fcntl($socket, F_SETFD, $flags & ~FD_CLOEXEC) or exit 125;
  push @kept, $socket;
  push @words, fileno($socket);
  push @inherited, "$host $port " . fileno($socket);
}
shift @ARGV;
@ARGV or exit 125;
$| = 1;
print STDOUT join(' ', @words), "\n";
open(STDOUT, '>', '/dev/null') or exit 125;
$ENV{EXECTL_DOOR_LISTENERS} = join(';', @inherited);
exec { $ARGV[0] } @ARGV or exit 127;
