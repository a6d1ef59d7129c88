#!/usr/bin/perl
# roff-chars.pl PAGE.1: rewrites, in place, every character beyond ASCII of a man page (from the
# reference pages and from --help alike) as a groff glyph, so the page reads right in any
# locale: in a UTF-8 terminal the character itself, in the C locale (groff -Tascii) an ASCII
# stand-in instead of the `?` man would print. Glyphs groff's ASCII device spells well keep their
# name (\(em is `--`, \(-> is `->`); the others are \[uXXXX] with a `.fchar` stand-in declared
# after .TH. A character in neither table becomes \[uXXXX] without a stand-in: groff then warns
# under the C locale, which tests/scripts/man_test.sh reports, naming the character to add here.
use strict;
use warnings;

my %named = (
  "\x{2014}" => '\(em', "\x{2013}" => '\(en', "\x{2192}" => '\(->', "\x{2190}" => '\(<-',
  "\x{2194}" => '\(<>', "\x{00D7}" => '\(mu', "\x{2260}" => '\(!=', "\x{2264}" => '\(<=',
  "\x{2265}" => '\(>=', "\x{2018}" => '\(oq', "\x{2019}" => '\(cq', "\x{201C}" => '\(lq',
  "\x{201D}" => '\(rq', "\x{00A0}" => '\~',
);
my %fallback = (
  "\x{2026}" => '...', "\x{21B3}" => '->', "\x{2713}" => 'ok', "\x{2717}" => 'x',
  "\x{00A7}" => 'S', "\x{00B5}" => 'u', "\x{00B7}" => '.', "\x{FFFD}" => '?',
  "\x{2502}" => '|', "\x{2500}" => '-', "\x{2022}" => '*', "\x{00B1}" => '+-',
  "\x{22EF}" => '...', "\x{25B8}" => '>', "\x{25BE}" => 'v',
);

my $page = shift @ARGV or die "usage: roff-chars.pl PAGE.1\n";
open(my $in, '<:encoding(UTF-8)', $page) or die "roff-chars.pl: $page: $!\n";
my @lines = <$in>;
close $in;
my %used;
for (@lines) {
  s/([^\x00-\x7f])/exists $named{$1} ? $named{$1} : do { $used{$1} = 1; sprintf('\[u%04X]', ord $1) }/ge;
}
my @fchars = map { sprintf(".fchar \\[u%04X] %s\n", ord $_, $fallback{$_}) } grep { exists $fallback{$_} } sort keys %used;
my $th = 0;
$th++ while $th < @lines && $lines[$th] !~ /^\.TH /;
splice(@lines, $th + 1, 0, @fchars) if $th < @lines;
open(my $out, '>:encoding(UTF-8)', "$page.new") or die "roff-chars.pl: $page.new: $!\n";
print $out @lines;
close $out or die "roff-chars.pl: $page.new: $!\n";
rename("$page.new", $page) or die "roff-chars.pl: $page: $!\n";
