#!/usr/bin/perl
# vv_compare.pl THEIRS OURS: compares the row values of MySQL's `mysqlbinlog -vv
# --base64-output=DECODE-ROWS` (THEIRS) with binrecover's (OURS), image by image and column by
# column, for every value mysqlbinlog decodes (it stops an image at a type it does not know:
# "!! Don't know how to handle"): value and type comment must be byte for byte the same.
# Prints each difference and exits 1 when there is one; prints the count of values compared.
use strict;
use warnings;

my ($theirs_file, $ours_file) = @ARGV;

sub read_images {
  my ($file) = @_;
  open(my $fh, '<:raw', $file) or die "cannot read $file: $!";
  my (%values, %types);
  my $image = 0;
  while (my $line = <$fh>) {
    chomp $line;
    if ($line =~ /^### (SET|WHERE)$/) { ++$image; next; }
    next unless $line =~ /^###   \@(\d+)=(.*)$/s;
    my ($col, $rest) = ($1, $2);
    my $type = '';
    if ($rest =~ s{ /\* (.*?) \*/$}{}s) { $type = $1; }
    $values{"$image:$col"} = $rest;
    $types{"$image:$col"} = $type;
  }
  return (\%values, \%types);
}

my ($tv, $tt) = read_images($theirs_file);
my ($ov, $ov_types) = read_images($ours_file);
my ($compared, $bad) = (0, 0);
for my $key (sort keys %$tv) {
  my $t = $tv->{$key};
  my $type = $tt->{$key};
  next if $t =~ /^!! /;
  my $o = $ov->{$key};
  my $ok = defined $o && $t eq $o && $type eq $ov_types->{$key};
  ++$compared;
  next if $ok;
  ++$bad;
  print "differs at image/column $key ($type): mysqlbinlog $t, binrecover " . ($o // '(none)') . "\n";
}
print "$compared values compared, $bad differ\n";
exit($bad ? 1 : 0);
