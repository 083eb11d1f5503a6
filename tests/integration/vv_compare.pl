#!/usr/bin/perl
# vv_compare.pl THEIRS OURS [COL=member,member ...]: compares the row values of MySQL's
# `mysqlbinlog -vv --base64-output=DECODE-ROWS` (THEIRS) with binrecover's (OURS, written with
# --timezone=UTC), image by image and column by column, for every value mysqlbinlog decodes
# (it stops an image at a type it does not know: "!! Don't know how to handle"). The two
# tools write the same value differently; each is brought to one form first:
#   integers: mysqlbinlog ignores signedness and writes "-1 (255)": ours must be one of them;
#   FLOAT/DOUBLE: equal as numbers; DATE: 2026:02:28 is 2026-02-28; TIMESTAMP: its seconds
#   since the epoch are ours in UTC; BIT: b'1010' is 10; ENUM: its index is ours' member and
#   SET: its bitmask ours' members (the members of column @N given as N=a,b,c);
#   strings: the same bytes (theirs: \' \\ \xHH escapes and raw bytes; ours: _cs'...' with
#   \' \\ \0 \n \r \Z, or X'hex'); a BINARY(n) value with its zero padding (ours) is the same
#   as without (theirs).
# Prints each difference and exits 1 when there is one; prints the count of values compared.
use strict;
use warnings;

my ($theirs_file, $ours_file, @members) = @ARGV;
my %members;
for (@members) { my ($n, $list) = split /=/, $_, 2; $members{$n} = [split /,/, $list]; }

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

sub string_bytes {  # a quoted value of either tool, as its bytes
  my ($v) = @_;
  return pack('H*', $1) if $v =~ /^X'([0-9A-Fa-f]*)'$/;
  $v =~ s/^_\w+//;
  return undef unless $v =~ /^'(.*)'$/s;
  my $s = $1;
  my %esc = ("'" => "'", '\\' => '\\', '0' => "\0", 'n' => "\n", 'r' => "\r", 'Z' => "\x1a",
             '"' => '"');
  $s =~ s/\\(x([0-9A-Fa-f]{2})|.)/defined $2 ? chr(hex $2) : ($esc{$1} \/\/ $1)/ges;
  return $s;
}

my ($tv, $tt) = read_images($theirs_file);
my ($ov) = read_images($ours_file);
my ($compared, $bad) = (0, 0);
for my $key (sort keys %$tv) {
  my $t = $tv->{$key};
  my $type = $tt->{$key};
  next if $t =~ /^!! /;
  my $o = $ov->{$key};
  my ($col) = $key =~ /:(\d+)$/;
  my $ok;
  if (!defined $o) {
    $ok = 0;
  } elsif ($t eq 'NULL' || $o eq 'NULL') {
    $ok = $t eq $o;
  } elsif ($type =~ /^(TINYINT|SHORTINT|MEDIUMINT|INT|LONGINT)\b/) {
    my @c = $t =~ /^(-?\d+)(?: \((\d+)\))?$/;
    $ok = grep { defined $_ && $_ eq $o } @c;
  } elsif ($type =~ /^(FLOAT|DOUBLE)\b/) {
    $ok = $t + 0 == $o + 0;
  } elsif ($type =~ /^DATE\b/) {
    (my $d = $t) =~ tr/:/-/;
    $ok = $d eq $o;
  } elsif ($type =~ /^TIMESTAMP\b/) {
    my ($sec, $frac) = $t =~ /^(\d+)(\.\d+)?$/;
    my @g = gmtime($sec);
    my $text = sprintf("'%04d-%02d-%02d %02d:%02d:%02d%s'", $g[5] + 1900, $g[4] + 1, $g[3], $g[2],
                       $g[1], $g[0], $frac // '');
    $ok = $text eq $o;
  } elsif ($type =~ /^BIT\b/) {
    my ($bits) = $t =~ /^b'([01]+)'$/;
    $ok = defined $bits && oct("0b$bits") == $o;
  } elsif ($type =~ /^(ENUM|SET)\b/) {
    my $kind = $1;
    my $m = $members{$col} or die "no members given for column \@$col ($kind)";
    my $theirs = $kind eq 'SET' ? oct('0b' . ($t =~ /^b'([01]+)'$/)[0]) : $t;
    my $ours = 0;
    my $name = string_bytes($o) // '';
    if ($kind eq 'ENUM') {
      ($ours) = grep { $m->[$_ - 1] eq $name } 1 .. @$m;
    } else {
      for my $part (split /,/, $name) {
        my ($i) = grep { $m->[$_] eq $part } 0 .. $#$m;
        $ours |= 1 << $i if defined $i;
      }
    }
    $ok = defined $ours && $theirs == $ours;
  } else {  # strings, BLOB/TEXT, JSON, DECIMAL, TIME, DATETIME, YEAR
    my ($a, $b) = (string_bytes($t), string_bytes($o));
    if (defined $a && defined $b) {
      $b =~ s/\0+$// if length($b) > length($a) && $type =~ /^STRING/;
      $ok = $a eq $b;
    } else {
      $ok = $t eq $o;
    }
  }
  ++$compared;
  next if $ok;
  ++$bad;
  print "differs at image/column $key ($type): mysqlbinlog $t, binrecover " . ($o // '(none)') . "\n";
}
print "$compared values compared, $bad differ\n";
exit($bad ? 1 : 0);
