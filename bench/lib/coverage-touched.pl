#!/usr/bin/perl
# coverage-touched.pl NAME... < UNIFIED_DIFF: exit 0 if the change touches
# one of NAMEs: on a changed line, or in the statement a changed line is
# part of (a declaration over several lines, whose name is on an unchanged
# first line: "int (*tdls_mgmt)(struct wiphy *wiphy," then new parameters).
use strict;
use warnings;

my %want = map { $_ => 1 } @ARGV;
my @stmt;	# the unchanged lines of the statement so far
my $hit = 0;

sub names { my ($l) = @_; return grep { $want{$_} } $l =~ /\b([A-Za-z_]\w*)\b/g; }

while (my $l = <STDIN>) {
	next if $l =~ /^(---|\+\+\+) /;
	if ($l =~ /^@@/) { @stmt = (); next; }
	my $code = substr($l, 1);
	$code =~ s{//.*|/\*.*?\*/}{}g;
	if ($l =~ /^[-+]/) {
		$hit = 1 if names($code) || grep { names($_) } @stmt;
		next;
	}
	@stmt = () if @stmt && $stmt[-1] =~ /[;{}]\s*$/;
	push @stmt, $code;
	@stmt = () if $code =~ /[;{}]\s*$/ || $code =~ /^\s*(#|$)/;
}
exit($hit ? 0 : 1);
