#!/usr/bin/perl
# coverage-canon.pl OBJ: a relocatable object as text that does not depend
# on the order gcc emitted its functions in (udp.c's WRITE_ONCE(x, 0)
# moves two), for bench/coverage's "same object code" check, which is
# meant to be independent of ksplice-create's own diff.
#  - each section by name: its bytes (a line number after "<file>.c:" or
#    ".h:" in a string masked), and its relocations as offset, type
#    and symbol (a section symbol by the section's name) with addend;
#  - the tables whose entries follow the functions (.orc_unwind_ip with
#    .orc_unwind, __mcount_loc, __jump_table, .altinstructions, ...): their
#    entries, relocation fields zeroed and the references named, sorted;
#    an alternative's replacement by its bytes, not its place;
#  - each symbol by name with its section, size, type and binding, and its
#    value unless it is in such a table (names made of a counter or a line
#    number, __UNIQUE_ID_x42 and an initcall's, without them).
use strict;
use warnings;

my ($obj) = @ARGV;
sub run { open my $h, '-|', @_ or die "$_[0]: $!\n"; my @l = <$h>; close $h or die "@_ failed\n"; return @l; }

# Entries a table has, by name: their size (0: one per symbol).
my %table = ('__mcount_loc' => 8, '.smp_locks' => 4, '__jump_table' => 16,
	'.static_call_sites' => 8, '.retpoline_sites' => 4, '.return_sites' => 4,
	'.call_sites' => 4, '.ibt_endbr_seal' => 4, '.altinstructions' => 12,
	'.parainstructions' => 16, '__ex_table' => 12, '.orc_unwind_ip' => 4,
	'.kcfi_traps' => 4, '__dyndbg' => 0);

my (%type, @name);
for (run('readelf', '-SW', $obj)) {
	next unless /^\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)/;
	($name[$1], $type{$2}) = ($2, $3);
}
my (%bytes, $cur);
for (run('objdump', '-s', $obj)) {
	if (/^Contents of section (\S+):/) { $cur = $1; $bytes{$cur} = ''; next; }
	next unless defined $cur && /^ [0-9a-f]+ ((?:[0-9a-f]{2,8} ?){1,4})/;
	(my $h = $1) =~ s/\s//g;
	$bytes{$cur} .= pack 'H*', $h;
}
# "... at arch/x86/kvm/emulate.c:1483" (__FILE__ ":" __stringify(__LINE__):
# fortify's field-spanning memcpy warning) moves with a line above it, and
# only a warning prints it: its digits masked, digit for digit, so that a
# number of another length (and every offset after it) still differs.
for my $s (grep { /^\.rodata\b.*\.str\d+\.\d+$/ } keys %bytes) {	# (.rodata.f.str1.8 too)
	$bytes{$s} =~ s/(?<=\.[ch]:)(\d+)/'#' x length $1/ge;
}
my %rel;	# section -> [offset, type, target, addend]
$cur = undef;
for (run('readelf', '-rW', $obj)) {
	if (/^Relocation section '\.rela([^']+)'/) { $cur = $1; next; }
	next unless defined $cur && /^([0-9a-f]+)\s+[0-9a-f]+\s+(\S+)\s+[0-9a-f]+\s+(\S+)\s*([-+])\s*([0-9a-f]+)$/;
	push @{$rel{$cur}}, [hex $1, $2, $3, ($4 eq '-' ? -1 : 1) * hex $5];
}
my (@syms, %in_sec, %uid);
for (run('readelf', '-sW', $obj)) {
	next unless /^\s*\d+:\s+([0-9a-f]+)\s+(\d+)\s+(\S+)\s+(\S+)\s+\S+\s+(\S+)\s*(\S*)$/;
	my ($val, $size, $type, $bind, $ndx, $n) = (hex $1, $2, $3, $4, $5, $6);
	next if $type eq 'SECTION' || $type eq 'FILE';
	my $sec = $ndx =~ /^\d+$/ ? $name[$ndx] // "?$ndx" : $ndx;
	next if $sec =~ /^\.discard\./;
	push @syms, [$n, $sec, $val, $size, $type, $bind];
	$uid{$n} = [$sec, $val, $size] if $n =~ /^__UNIQUE_ID_/;
	push @{$in_sec{$sec}}, [$val, $size] if defined $table{$sec};
}

# An alternative's replacement: its bytes up to the next one's start.
my @starts = sort { $a <=> $b } keys %{{ map { $_->[3] + ($_->[1] =~ /PC|PLT/ ? 4 : 0) => 1 }
	grep { $_->[2] eq '.altinstr_replacement' } map { @$_ } values %rel }};
sub referent {
	my ($t, $add, $type, $depth) = @_;
	# (__UNIQUE_ID_x<counter>: the counter is no name; what it holds is)
	return 'unique{' . piece(@{$uid{$t}}, 1) . "}+$add" if $uid{$t} && !$depth;
	return "$t+$add" unless $t eq '.altinstr_replacement';
	my $at = $add + ($type =~ /PC|PLT/ ? 4 : 0);
	my ($end) = grep { $_ > $at } @starts;
	my $b = $bytes{$t} // '';
	$end //= length $b;
	return 'replacement{' . piece($t, $at, $end - $at) . '}';
}
# Bytes [at, at+len) of a section, relocation fields zeroed, then its references.
sub piece {
	my ($s, $at, $len, $depth) = @_;
	my $b = substr($bytes{$s} // '', $at, $len);
	my @refs;
	for my $r (grep { $_->[0] >= $at && $_->[0] < $at + $len } @{$rel{$s} // []}) {
		my $w = $r->[1] =~ /64/ ? 8 : 4;
		substr($b, $r->[0] - $at, $w) = "\0" x $w if $r->[0] - $at + $w <= length $b;
		push @refs, sprintf('%x %s %s', $r->[0] - $at, $r->[1],
			$s eq '.altinstr_replacement' && $r->[2] eq $s ? "$r->[2]+?" : referent($r->[2], $r->[3], $r->[1], $depth));
	}
	return join ' ', unpack('H*', $b), @refs;
}

my @out;
for my $s (sort keys %type) {
	next if $type{$s} =~ /^(RELA|SYMTAB|STRTAB|GROUP)$/ || $s =~ /^\.discard\./ ||
		$s eq '.orc_unwind' || $s eq '.altinstr_replacement';
	my $len = length($bytes{$s} // '');
	if (!defined $table{$s}) {
		push @out, "section $s $type{$s} $len", piece($s, 0, $len);
		next;
	}
	my @e;
	my @at = $table{$s} ? map { [$_ * $table{$s}, $table{$s}] } 0 .. $len / $table{$s} - 1
			    : sort { $a->[0] <=> $b->[0] } @{$in_sec{$s} // []};
	for my $i (0 .. $#at) {
		my $e = piece($s, @{$at[$i]});
		$e .= ' orc ' . unpack('H*', substr($bytes{'.orc_unwind'} // '', $i * 6, 6)) if $s eq '.orc_unwind_ip';
		push @e, $e;
	}
	push @out, "table $s $type{$s} $len", sort @e;
}
push @out, sort map { my @f = @$_; $f[2] = defined $table{$f[1]} ? '-' : sprintf('%x', $f[2]);
	$f[0] =~ s/^(__UNIQUE_ID_.*?)\d+$/$1/ and $f[2] = '-';
	# (an initcall's name holds a counter and its line: __initcall__kmod_m__343_1710_f3)
	$f[0] =~ s/^(__initcall__kmod_.*?__)\d+_\d+_/$1/; "symbol @f" } @syms;
print "$_\n" for @out;
