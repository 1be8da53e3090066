#!/usr/bin/perl
# coverage-classify.pl OUT CONSOLE RC: the rows of one boot of bench/coverage,
# from the guest's "COV ID ..." lines (bench/lib/coverage-guest.sh) and the
# rig's exit status RC.  Prints "id \t stage \t cause \t detail \t seconds
# \t undo" for every update the guest began; the one it began and did not
# end is a crash (or a hang: RC 124).  Causes are ksplice-apply's words
# (src/lib/kernel.c) and the core's abort_detail (kmod/match.c).
use strict;
use warnings;

# --match-kind DETAIL: just the kind of a run-pre mismatch.
if (@ARGV == 2 && $ARGV[0] eq '--match-kind') { print match_kind($ARGV[1]), "\n"; exit 0; }
my ($outf, $consf, $rc) = @ARGV;
my (@order, %u);
open my $o, '<', $outf or die "$outf: $!";
while (<$o>) {
	s/\r?\n$//;
	if (/^COV-BEGIN (\S+)/) { push @order, $1; $u{$1} = { lines => [] }; next }
	if (/^COV-END (\S+) (\d+)/) { $u{$1}{end} = $2 if $u{$1}; next }
	if (/^COV (\S+) (\S+) ?(.*)$/ && $u{$1}) { push @{$u{$1}{lines}}, [$2, $3] }
}
close $o;

sub all { my ($x, $k) = @_; return map { $_->[1] } grep { $_->[0] eq $k } @{$x->{lines}}; }
sub one { my @v = all(@_); return $v[0]; }

# The kind of a run-pre mismatch, from the core's abort_detail.
sub match_kind {
	my ($d) = @_;
	# A site the kernel rewrote at boot that matching did not accept.
	return "rewrite: $1 site" if $d =~ /(\w+) site at \S+: running /;
	return "rewrite: site ($1)" if $d =~ /site at \+0x[0-9a-f]+:? (unknown kind|bad length|bad reloc array|lacks its reloc|overlaps)/;
	if ($d =~ /running ((?:[0-9a-f]{2} ?)+), expected/) {
		my $b = $1;
		return 'bytes: nop' if $b =~ /^(0f 1f|66 0f 1f|66 90|90)/;
		return 'bytes: call' if $b =~ /^e8/;
		return 'bytes: jmp' if $b =~ /^(e9|eb)/;
		return 'bytes: int3' if $b =~ /^cc/;
		return 'bytes: other';
	}
	return 'reference' if $d =~ /refers to .*, not to /;
	return 'inconsistent reference' if $d =~ /refers to .*, elsewhere to /;
	return 'data reference' if $d =~ /data at .* differs/;
	return 'target not loaded' if $d =~ /target \S+ is not loaded/;
	return 'no such symbol' if $d =~ /: 0 symbols of that name/;
	return 'symbol count' if $d =~ /symbols of that name/;
	return 'ambiguous' if $d =~ /ambiguous/;
	return 'candidates taken' if $d =~ /candidates taken/;
	return 'unreadable' if $d =~ /cannot read/;
	return 'other';
}

# A target module that the VM cannot load (kvm_intel: TCG has no VMX):
# the update was not tried on it, applied or refused for want of it.
# Counted apart, neither a success nor a failure.
sub rig {
	my ($x, $what) = @_;
	my @m = all($x, 'notloaded');
	return ('rig', 'target not loadable in the VM',
		"$what; not tried on @m: modprobe fails in the guest");
}

sub apply_failure {
	my ($x) = @_;
	my @out = all($x, 'applyout');
	my ($what) = map { /could not apply update \S+: (.*)/ ? $1 : () } @out;
	my ($says) = map { /The ksplice core says: (.*)/ ? $1 : () } @out;
	my ($err) = grep { /^ksplice-apply: / } @out;
	$says //= ''; $err //= $out[0] // 'no output';
	$err =~ s/^ksplice-apply: //;
	return ('match', match_kind($says), $says) if defined $what && $what =~ /not built from this kernel/;
	return ('match', 'unpatchable', $says) if defined $what && $what =~ /cannot be redirected/;
	if (defined $what && $what =~ /tasks were running/) {
		my @busy = all($x, 'busy');	# "pid kthread func comm"
		my @k = grep { (split / /)[1] eq '1' } @busy;
		my $who = join ', ', map { my @f = split / /, $_, 4; "$f[3] in $f[2]" } @busy;
		return ('nature', 'kthread never leaves', "a kernel thread is always in it: $who")
			if @busy && @k == @busy;
		return ('apply', 'code_busy', $who || $says);
	}
	my %c = ('symbol the update needs' => 'failed_to_find', 'malformed' => 'bad_update',
		 'already replaced' => 'already_applied', 'out of memory' => 'out_of_memory',
		 'unexpected error' => 'unexpected');
	if (defined $what) {
		for my $k (keys %c) { return ('apply', $c{$k}, $says || $what) if $what =~ /\Q$k\E/ }
	}
	if ($err =~ /cannot load the (update|ksplice core) module/) {
		my @dm = all($x, 'applydmesg');
		return ('apply', 'load-module', join '; ', $err, @dm);
	}
	return ('apply', 'load symbol: ambiguous', $err) if $err =~ /, of which \S+ has several/;
	if ($err =~ /of module (\S+), which is not loaded/) {
		return rig($x, $err) if grep { $_ eq $1 } all($x, 'notloaded');
		return ('apply', 'load symbol: module not loaded', $err);
	}
	return ('apply', 'load symbol: not in kallsyms', $err) if $err =~ /kallsyms does not have/;
	return ('apply', 'module dependency', $err) if $err =~ /the update uses module \S+, which could not be loaded/;
	return ('apply', 'load-symbol', $err) if $err =~ /load symbols|kallsyms/;
	return ('apply', 'other', $err);
}

sub classify {
	my ($x) = @_;
	my $applied = one($x, 'apply');
	return apply_failure($x) if defined $applied && $applied ne '0';
	my @dmesg = all($x, 'dmesg');
	return ('smoke', 'kernel warning', $dmesg[0]) if @dmesg;
	my @refused = grep { / refused / } all($x, 'reload');
	return ('smoke', 'reload refused', $refused[0]) if @refused;
	my $undo = one($x, 'undo') // '';
	if ($undo ne '0') {
		my @uo = all($x, 'undoout');
		my ($what) = map { /could not reverse update \S+: (.*)/ ? $1 : () } @uo;
		my $cause = defined $what && $what =~ /tasks were running/ ? 'code_busy' : 'failed';
		return ('undo', $cause, join(' ', @uo[0 .. ($#uo < 2 ? $#uo : 2)]));
	}
	return rig($x, 'applied') if all($x, 'notloaded');
	my @t = (map({ "loaded $_" } all($x, 'loaded')), map({ "not loadable $_" } all($x, 'notloaded')),
		 map({ "reload $_" } all($x, 'reload')));
	return ('applied', 'ok', @t ? join('; ', @t) : 'vmlinux');
}

my $crash_detail = sub {
	my @c;
	if (open my $c, '<', $consf) { @c = <$c>; close $c; }
	s/\r?\n$// for @c;
	my ($bug) = grep { /BUG:|general protection|Oops|Kernel panic|RIP: / } @c;
	my ($rip) = grep { /RIP: 0010:/ } @c;
	my $d = $rc == 124 ? 'the guest hung (timed out)' : "the guest crashed (rig exit $rc)";
	$d .= ": $bug" if $bug;
	$d .= "; $rip" if $rip && (!$bug || $rip ne $bug);
	return $d;
};

for my $id (@order) {
	my $x = $u{$id};
	my ($stage, $cause, $detail, $undo);
	if (!defined $x->{end}) {
		# What was running: the step after the last one it reported.
		my $last = @{$x->{lines}} ? $x->{lines}[-1][0] : 'start';
		my %in = (start => 'module load or apply', loaded => 'module load or apply',
			  notloaded => 'module load or apply', apply => 'apply',
			  smoke => 'smoke check', reload => 'reload or undo', dmesg => 'undo',
			  undo => 'module unload', undoout => 'module unload',
			  applyout => 'module unload', applydmesg => 'module unload', busy => 'module unload');
		my $step = $in{$last} // $last;
		($stage, $cause, $detail) = ('crash', $rc == 124 ? "hang in $step" : "crash in $step",
					     $crash_detail->());
		$undo = '-';
	} else {
		($stage, $cause, $detail) = classify($x);
		my $ud = one($x, 'undo');
		$undo = !defined $ud ? '-' : $ud eq '0' ? 'ok' : 'failed';
	}
	$detail //= '';
	$detail =~ s/\s+/ /g;
	printf "%s\t%s\t%s\t%s\t%s\t%s\n", $id, $stage, $cause, $detail, $x->{end} // 0, $undo;
}
