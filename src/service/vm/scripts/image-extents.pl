# image-extents.pl: prints "OFFSET LENGTH" for each range of data in a file (SEEK_DATA and
# SEEK_HOLE: Node has no such seek), for disk/image-template.ts.
# Argument, ours: FILE, a scratch image made by mkfs.
open(my $f, "<", $ARGV[0]) or die "$ARGV[0]: $!\n";
my ($pos, $size) = (0, -s $f);
while ($pos < $size) {
  my $data = sysseek($f, $pos, 3);
  last unless defined $data;
  my $hole = sysseek($f, $data, 4);
  print $data + 0, " ", $hole - $data, "\n";
  $pos = $hole;
}
