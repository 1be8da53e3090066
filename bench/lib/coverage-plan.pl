#!/usr/bin/perl
# coverage-plan.pl OLD_TREE NEW_TREE DIR [SAMPLE SEED]: bench/coverage's
# split of a Debian update into patches.  Reads DIR/changed ("M|A|D\tpath")
# and DIR/units (the config's units, fs/proc/cmdline.o); writes
#   DIR/plan.tsv     id \t files (space-separated) \t kind
#   DIR/skipped.tsv  path \t why (not built by the config, not C)
# Every changed .c the config builds is a patch.  A changed header joins
# the patch of each changed .c (or header) that needs it: one that includes
# it (directly, or lives under the header's directory) and whose change
# uses a name the header's change touches.  What is joined goes as one.
# A header that nobody needs is a patch alone.  The order is a shuffle with
# SEED (so that a partial run is a fair sample); SAMPLE keeps the first N.
use strict;
use warnings;

# With --includes FILE...: print instead the changed headers that FILEs
# include (for a retry of a patch that does not compile alone).
my @includes_of;
if (@ARGV > 3 && $ARGV[3] eq '--includes') { @includes_of = splice @ARGV, 3; shift @includes_of; }
my ($old, $new, $dir, $sample, $seed) = @ARGV;
$seed = 1 unless defined $seed && $seed ne '';

my %unit;
open my $u, '<', "$dir/units" or die "$dir/units: $!";
while (<$u>) { chomp; $unit{$_} = 1; }
close $u;

my (@c, @h, @skip);
open my $ch, '<', "$dir/changed" or die "$dir/changed: $!";
while (<$ch>) {
	chomp;
	my ($st, $p) = split /\t/;
	if ($p =~ /\.c$/) {
		(my $o = $p) =~ s/\.c$/.o/;
		if ($unit{$o}) { push @c, $p } else { push @skip, [$p, 'not built by the config'] }
	} elsif ($p =~ /\.h$/) {
		if ($p =~ m{^(tools|scripts|Documentation|samples)/} ||
		    ($p =~ m{^arch/([^/]+)/} && $1 ne 'x86')) {
			push @skip, [$p, 'header outside an x86 kernel build'];
		} else {
			push @h, $p;
		}
	} else {
		my $why = $p =~ /\.S$/ ? 'assembly' :
			  $p =~ m{(^|/)(Makefile|Kconfig|Kbuild)[^/]*$} ? 'build file' :
			  $p =~ m{^Documentation/} ? 'documentation' :
			  $p =~ m{\.dtsi?$} ? 'device tree' : 'not C';
		push @skip, [$p, $why];
	}
}
close $ch;

sub slurp {
	my ($p) = @_;
	for my $t ($new, $old) {
		if (open my $f, '<', "$t/$p") { local $/; my $s = <$f>; return $s; }
	}
	return '';
}

# The names a file's change touches: identifiers on its -/+ lines.
my %stop = map { $_ => 1 } qw(
	static inline const struct union enum return unsigned signed void char
	short long bool true false NULL sizeof typeof extern define ifdef ifndef
	endif else elif include break continue goto case default switch while
	for do if int u8 u16 u32 u64 s8 s16 s32 s64 __u8 __u16 __u32 __u64 size_t
	ssize_t loff_t this that with from data size len type flags value index
	count info priv dev err ret val res buf addr name list head node ops);
sub touched {
	my ($p) = @_;
	my (%w, $in);
	open my $d, '-|', 'diff', '-uN', "$old/$p", "$new/$p" or die "diff: $!";
	while (my $l = <$d>) {
		next if $l =~ /^(---|\+\+\+) /;
		next unless $l =~ /^[-+]/;
		next if $l =~ m{^.\s*(\*|/\*|//)};	# a comment line
		$l =~ s{//.*|/\*.*?\*/}{}g;
		$w{$_} = 1 for grep { length($_) >= 4 && !$stop{$_} } $l =~ /\b([A-Za-z_]\w*)\b/g;
	}
	close $d;
	return \%w;
}

# The changed headers a file includes (by the usual resolutions): a quoted
# name next to the file, or any name under an include/ directory, or a
# quoted path with a directory anywhere.
my %by_tail;	# "linux/foo.h" -> headers whose path ends so
sub index_headers {
	for my $h (@_) {
		my @p = split m{/}, $h;
		push @{$by_tail{join '/', @p[$_ .. $#p]}}, $h for 0 .. $#p;
	}
}
sub included {
	my ($from, $text) = @_;
	(my $fdir = $from) =~ s{/[^/]*$}{};
	my %hit;
	while ($text =~ /^\s*#\s*include\s*([<"])([^>"]+)[>"]/mg) {
		my ($k, $inc) = ($1, $2);
		if ($k eq '"') {
			my $p = "$fdir/$inc";
			1 while $p =~ s{(^|/)(?!\.\./)[^/]+/\.\./}{$1};
			$hit{$p} = 1 if $by_tail{$p};
		}
		(my $tail = $inc) =~ s{^(\.\./)+}{};
		for my $h (@{$by_tail{$tail} // []}) {
			$hit{$h} = 1 if $h =~ m{(^|/)include/(uapi/)?\Q$tail\E$} ||
					($k eq '"' && $tail =~ m{/});
		}
	}
	return \%hit;
}

if (@includes_of) {
	index_headers(@h);
	my %want;
	for my $f (@includes_of) { $want{$_} = 1 for keys %{included($f, slurp($f))}; }
	delete @want{@includes_of};
	print "$_\n" for sort keys %want;
	exit 0;
}

my @files = (@c, @h);
my %parent = map { $_ => $_ } @files;
sub find { my $x = shift; $x = $parent{$x} while $parent{$x} ne $x; return $x; }
sub join_ { my ($a, $b) = map { find($_) } @_; $parent{$a} = $b if $a ne $b; }

my %words = map { $_ => touched($_) } @files;
# A name many changes touch (list_for_each_entry) links nothing.
my %df;
for my $w (values %words) { $df{$_}++ for keys %$w; }
for my $w (values %words) { delete @$w{grep { $df{$_} > 8 } keys %$w}; }
index_headers(@h);
my %inc = map { $_ => included($_, slurp($_)) } @files;
for my $hd (@h) {
	(my $hdir = $hd) =~ s{/[^/]*$}{};
	$hdir =~ s{/include(/.*)?$}{};
	my $hw = $words{$hd};
	for my $f (@files) {
		next if $f eq $hd;
		next unless $inc{$f}{$hd} ||
			    index($f, "$hdir/") == 0 && $hdir =~ m{/};
		next unless grep { $hw->{$_} } keys %{$words{$f}};
		join_($f, $hd);
	}
}

my %group;
push @{$group{find($_)}}, $_ for @files;
my @groups = map { [sort @{$group{$_}}] } sort keys %group;
@groups = sort { $a->[0] cmp $b->[0] } @groups;

# Fisher-Yates with perl's own generator: the same order for the same seed.
srand($seed);
for (my $i = $#groups; $i > 0; $i--) {
	my $j = int(rand($i + 1));
	@groups[$i, $j] = @groups[$j, $i];
}
splice @groups, $sample if defined $sample && $sample ne '' && $sample < @groups;

open my $pl, '>', "$dir/plan.tsv.tmp" or die;
my $n = 0;
for my $g (@groups) {
	my $kind = (grep { /\.h$/ } @$g) ? (grep { /\.c$/ } @$g) ? 'c+h' : 'h' : 'c';
	printf $pl "cv%04d\t%s\t%s\n", ++$n, join(' ', @$g), $kind;
}
close $pl;
open my $sk, '>', "$dir/skipped.tsv" or die;
print $sk "$_->[0]\t$_->[1]\n" for sort { $a->[0] cmp $b->[0] } @skip;
close $sk;
rename "$dir/plan.tsv.tmp", "$dir/plan.tsv" or die;
