#!/usr/bin/perl
# coverage-summary.pl DIR: bench/coverage's table, from DIR/results.tsv,
# DIR/plan.tsv and DIR/skipped.tsv.
use strict;
use warnings;

my ($dir) = @ARGV;
sub lines { my ($f) = @_; open my $h, '<', $f or return (); my @l = <$h>; chomp @l; return @l; }

my @plan = lines("$dir/plan.tsv");
my @skip = map { [split /\t/] } lines("$dir/skipped.tsv");
my @rows = map { [split /\t/, $_, -1] } lines("$dir/results.tsv");
shift @rows;	# the header

my (%n, %fail, %apart);
for my $r (@rows) {
	# (rows saved before the rig stage: applied, a target not loadable)
	@$r[2, 3] = ('rig', 'target not loadable in the VM')
		if $r->[2] eq 'applied' && $r->[4] =~ /not loadable/;
	my ($stage, $cause) = @$r[2, 3];
	$n{$stage}++;
	if ($stage =~ /^(nature|noop|data|rig)$/) { $apart{"$stage\t$cause"}++ }
	elsif ($stage ne 'applied') { $fail{"$stage\t$cause"}++ }
}
my %skipwhy;
$skipwhy{$_->[1]}++ for @skip;
my $done = @rows;
my $data = $n{data} // 0;
my $layout = grep { $_->[2] eq 'data' && $_->[3] eq 'struct-layout' } @rows;
my $apart = ($n{nature} // 0) + ($n{noop} // 0) + ($n{rig} // 0) + $data;
my $den = $done - $apart;
my $ok = $n{applied} // 0;

my ($name) = lines("$dir/range");
$name //= $dir;
printf "ksplice coverage of %s\n", $name;
printf "  %d of %d patches done%s\n", $done, scalar @plan, $done < @plan ? ' (a partial run: the order is shuffled, so a fair sample)' : '';
printf "  applied live: %d of %d = %.1f%%\n", $ok, $den, $den ? 100 * $ok / $den : 0;
printf "  with changes of existing data as failures: %d of %d = %.1f%%\n", $ok, $den + $data,
	$den + $data ? 100 * $ok / ($den + $data) : 0;
printf "  with them as failures but for structure layouts (issue 9's measure): %d of %d = %.1f%%\n", $ok,
	$den + $data - $layout, $den + $data - $layout ? 100 * $ok / ($den + $data - $layout) : 0;
printf "  counted apart: %d (cannot apply by nature, nothing to apply, changes existing data: needs the patch author's code, or not tried: the VM cannot load the target module)\n", $apart;
for my $k (sort { $apart{$b} <=> $apart{$a} || $a cmp $b } keys %apart) {
	my ($s, $c) = split /\t/, $k;
	printf "    %-8s %-32s %5d\n", $s, $c, $apart{$k};
}
printf "  not in the denominator: %d changed files\n", scalar @skip;
printf "    %-41s %5d\n", $_, $skipwhy{$_} for sort { $skipwhy{$b} <=> $skipwhy{$a} } keys %skipwhy;
printf "  failures (ours): %d\n", $den - $ok;
printf "    %-8s %-32s %5s\n", 'stage', 'cause', 'count';
for my $k (sort { $fail{$b} <=> $fail{$a} || $a cmp $b } keys %fail) {
	my ($s, $c) = split /\t/, $k;
	printf "    %-8s %-32s %5d\n", $s, $c, $fail{$k};
}
