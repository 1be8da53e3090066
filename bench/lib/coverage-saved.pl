#!/usr/bin/perl
# coverage-saved.pl import DIR SAVED [STAGE,...]: rows of SAVED/results.tsv
# whose patch DIR/plan.tsv has with the same files and DIR has not done
# are appended to DIR/results.tsv and marked done; rows of the STAGEs
# listed ("failed": every stage that counts against us), or of the patch
# ids listed, are left out, and DIR's own rows of them removed, so that
# those patches run again.
# coverage-saved.pl save DIR SAVED: DIR/results.tsv's rows go to
# SAVED/results.tsv, replacing its rows of the same patch and keeping its
# others (a run that dies keeps what it was told to run again), sorted by
# patch id (stable diffs: SAVED is meant to be committed); DIR's plan.tsv,
# skipped.tsv and range go along, so that bench/coverage --report SAVED
# prints the table.  Both hold DIR's lock, which the writers of its rows
# take.
#
# A full run takes longer than a working session and outlives the machine
# that started it; the saved directory carries it over to the next one.
use strict;
use warnings;
use Fcntl qw(:flock);
use File::Path qw(make_path);

my ($cmd, $dir, $saved, $skip) = @ARGV;
die "usage: coverage-saved.pl import|save DIR SAVED [STAGES]\n"
	unless defined $saved && ($cmd eq 'import' || $cmd eq 'save');
my $file = "$saved/results.tsv";

sub lines {
	my ($f) = @_;
	open my $h, '<', $f or die "coverage: cannot read $f: $!\n";
	my @l = <$h>;
	chomp @l;
	return @l;
}

sub id_of { return (split /\t/, $_[0], -1)[6] // ''; }

# The rows of @_ with as many columns as the header $_[0].
sub whole {
	my ($head, @rows) = @_;
	my $n = () = $head =~ /\t/g;
	return grep { (() = /\t/g) == $n } @rows;
}

open my $lock, '>>', "$dir/results.lock" or die "coverage: $dir/results.lock: $!\n";
flock($lock, LOCK_EX) or die "coverage: cannot lock $dir/results.lock: $!\n";

if ($cmd eq 'save') {
	-d $saved or make_path($saved) or die "coverage: cannot make $saved: $!\n";
	my ($head, @rows) = lines("$dir/results.tsv");
	my %ran = map { id_of($_) => 1 } @rows;
	if (-e $file) {
		my ($was, @kept) = lines($file);
		push @rows, grep { !$ran{id_of($_)} } whole($was, @kept) if $was eq $head;
	}
	open my $o, '>', "$file.tmp" or die "coverage: cannot write $file.tmp: $!\n";
	print $o join("\n", $head, sort { id_of($a) cmp id_of($b) } @rows), "\n";
	close $o or die "coverage: cannot write $file.tmp: $!\n";
	rename "$file.tmp", $file or die "coverage: cannot rename $file.tmp: $!\n";
	for my $f (qw(plan.tsv skipped.tsv range)) {
		open my $i, '<', "$dir/$f" or next;
		open my $c, '>', "$saved/$f" or die "coverage: cannot write $saved/$f: $!\n";
		print {$c} <$i>;
		close $c or die "coverage: cannot write $saved/$f: $!\n";
	}
	exit 0;
}

my %failed = map { $_ => 1 } qw(create match apply smoke undo crash);
my %redo;
for (split /,/, $skip // '') {
	if ($_ eq 'failed') { %redo = (%redo, %failed) }
	elsif (/^(applied|nature|noop|data|rig)$/ || $failed{$_}) { $redo{$_} = 1 }
	elsif (/^cv\d+$/) { $redo{"id $_"} = 1 }
	else { die "coverage: no stage '$_' (want failed, a stage of results.tsv or a patch id)\n" }
}

my %plan = map { my @f = split /\t/; ($f[0] => $f[1]) } lines("$dir/plan.tsv");
my ($head, @rows) = lines($file);
my ($have, @mine) = lines("$dir/results.tsv");
die "coverage: $file has columns '$head', this run '$have'\n" if $head ne $have;

my ($n, $stale, %again) = (0, 0);
# The run's own rows of those stages go too (a rerun on the machine that
# made them): their patches are not done.
if (%redo) {
	my @keep;
	for my $row (@mine) {
		my @f = split /\t/, $row, -1;
		if (defined $f[6] && ($redo{$f[2] // ''} || $redo{"id $f[6]"})) {
			# (created again with the current code, too)
			unlink map { "$dir/$_/$f[6]" } qw(done created deferred);
			$again{$f[6]} = 1;
		} else {
			push @keep, $row;
		}
	}
	open my $w, '>', "$dir/results.tsv.tmp" or die "coverage: cannot write $dir/results.tsv.tmp: $!\n";
	print $w join("\n", $have, @keep), "\n";
	close $w or die "coverage: cannot write $dir/results.tsv.tmp: $!\n";
	rename "$dir/results.tsv.tmp", "$dir/results.tsv" or die "coverage: cannot rename $dir/results.tsv.tmp: $!\n";
}
# Patches an earlier run of DIR was told to run again stay so until DIR
# has done them: the saved rows of them are the old ones (a save keeps
# them, lest a run that dies lose rows).
my %pending = map { $_ => 1 } -e "$dir/again" ? lines("$dir/again") : ();
open my $r, '>>', "$dir/results.tsv" or die "coverage: $dir/results.tsv: $!\n";
for my $row (whole($head, @rows)) {
	my @f = split /\t/, $row, -1;
	my ($files, $stage, $id) = @f[0, 2, 6];
	next if -e "$dir/done/$id";
	if (!defined $plan{$id} || $plan{$id} ne $files) { $stale++; next; }
	if ($redo{$stage} || $redo{"id $id"} || $pending{$id}) { $again{$id} = 1; next; }
	print $r "$row\n";
	open my $d, '>', "$dir/done/$id" or die "coverage: $dir/done/$id: $!\n";
	close $d;
	$n++;
}
close $r or die "coverage: $dir/results.tsv: $!\n";
if (%again) {
	open my $a, '>', "$dir/again.tmp" or die "coverage: cannot write $dir/again.tmp: $!\n";
	print $a "$_\n" for sort keys %{{ %pending, %again }};
	close $a or die "coverage: cannot write $dir/again.tmp: $!\n";
	rename "$dir/again.tmp", "$dir/again" or die "coverage: cannot rename $dir/again.tmp: $!\n";
}
my $redone = keys %again;
print STDERR "coverage: $n results taken from $file",
	$redone ? ", $redone left to run again" : '',
	$stale ? ", $stale not of this plan (left out)" : '', "\n";
