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
# Socket alone (not IO::Socket::IP, which takes several times longer to load): speed is the point.
use Socket qw(getaddrinfo AI_PASSIVE AI_NUMERICHOST SOCK_STREAM IPPROTO_TCP SOL_SOCKET
  SO_REUSEADDR);

# Sockets opened from here on stay open across the exec below (perl marks those above $^F
# close-on-exec).
$^F = 1 << 20;
my (@kept, @words, @inherited);
while (@ARGV && $ARGV[0] ne '--') {
  my ($host, $port) = splice(@ARGV, 0, 2);
  my $socket = listening($host, $port);
  if (!$socket) {
    push @words, '-';
    next;
  }
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

# A TCP socket listening at HOST:PORT (numeric), as node listens: SO_REUSEADDR, a backlog of
# 511; undef when it cannot be made.
sub listening {
  my ($host, $port) = @_;
  my ($error, $address) = getaddrinfo(
    $host, $port,
    { flags => AI_PASSIVE | AI_NUMERICHOST, socktype => SOCK_STREAM, protocol => IPPROTO_TCP }
  );
  return undef if $error || !$address;
  socket(my $socket, $address->{family}, SOCK_STREAM, IPPROTO_TCP) or return undef;
  setsockopt($socket, SOL_SOCKET, SO_REUSEADDR, 1) or return undef;
  bind($socket, $address->{addr}) or return undef;
  listen($socket, 511) or return undef;
  return $socket;
}
