#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
#
# Update files (src/lib/update-file.c, driven through the helper
# tests/unit/update-file-test.c) and ksplice-apply, -undo and -view
# against a fake sysfs tree.  Nothing here loads or unloads a module:
# KSPLICE_FAKE_MODULES=1 makes the tools only say what they would do.
use strict;
use warnings;
use Cwd qw(abs_path);
use Digest::SHA qw(sha256_hex);
use File::Basename qw(dirname);
use File::Path qw(make_path remove_tree);
use File::Temp qw(tempdir);
use POSIX qw(mkfifo uname WNOHANG);
use Test::More;

my $top = abs_path(dirname(__FILE__) . '/../..');
chdir $top or die "cannot cd to $top: $!";
my $tmp = tempdir('update-file-t.XXXXXX', TMPDIR => 1, CLEANUP => 1);

$ENV{KSPLICE_FAKE_MODULES} = '1';
delete $ENV{KSPLICE_SYSFS};
my $release = (uname())[2];
my $id = 'cve_2024_1';

system('make', '-s', 'src/lib/libksplice.a', 'bin/ksplice-apply',
       'bin/ksplice-undo', 'bin/ksplice-view') == 0
	or BAIL_OUT('cannot build the tools');
my $helper = "$tmp/update-file-test";
system('cc', qw(-std=gnu11 -Wall -Wextra -Wno-unused-parameter
		-Wno-sign-compare -Iinclude -Isrc/lib -D_GNU_SOURCE -o),
       $helper, 'tests/unit/update-file-test.c', 'src/lib/libksplice.a',
       '-larchive', '-lcrypto') == 0
	or BAIL_OUT('cannot build tests/unit/update-file-test.c');

sub slurp {
	my ($path) = @_;
	open my $fh, '<', $path or return undef;
	local $/;
	my $data = <$fh>;
	return $data;
}

sub spew {
	my ($path, $data) = @_;
	open my $fh, '>', $path or die "$path: $!";
	print $fh $data;
	close $fh or die "$path: $!";
}

# Runs a command under a timeout (a tool stuck on a fake FIFO must not
# hang the suite); returns its exit status, stdout and stderr.
sub run {
	my (@cmd) = @_;
	my $pid = fork // die "fork: $!";
	if (!$pid) {
		open STDIN, '<', '/dev/null';
		open STDOUT, '>', "$tmp/stdout";
		open STDERR, '>', "$tmp/stderr";
		{ exec 'timeout', '30', @cmd }
		POSIX::_exit(127);
	}
	waitpid($pid, 0);
	my $status = $? & 127 ? 128 + ($? & 127) : $? >> 8;
	return ($status, slurp("$tmp/stdout"), slurp("$tmp/stderr"));
}

# ---- update files ----

my $src = "$tmp/src";
make_path($src);
# Binary content with every byte value, and enough of it that the middle
# of the compressed file is file data.
my $core_data = join('', map { chr($_ % 256) x 3 } 0 .. 30000) . "\0end";
srand(42);
$core_data .= join('', map { chr(int(rand(256))) } 1 .. 60000);
my $upd_data = "update module\0\x01\x02\xff";
spew("$src/ksplice.ko", $core_data);
spew("$src/ksplice_$id.ko", $upd_data);
my @funcs = ('do_foo', 'do_bar.isra.0');

sub write_update {
	my ($out, $rel, $uid) = @_;
	$uid //= $id;
	return run($helper, 'write', $out, $uid, $rel, "$src/ksplice_$uid.ko",
		   "$src/ksplice.ko", @funcs);
}

my $good = "$tmp/good.ksplice";
my ($st, $out, $err) = write_update($good, $release);
is($st, 0, 'update_file_write succeeds') or diag($err);

{
	my ($st1, $st2);
	{
		local $ENV{SOURCE_DATE_EPOCH} = 1700000000;
		($st1) = write_update("$tmp/r1.ksplice", $release);
	}
	sleep 1;
	{
		delete local $ENV{SOURCE_DATE_EPOCH};
		($st2) = write_update("$tmp/r2.ksplice", $release);
	}
	ok($st1 == 0 && $st2 == 0 && slurp("$tmp/r1.ksplice") eq slurp("$tmp/r2.ksplice"),
	   'update_file_write is reproducible, whatever the time and SOURCE_DATE_EPOCH');
	my ($st3) = write_update("$tmp/r3.ksplice", $release . 'x');
	ok($st3 == 0 && slurp("$tmp/r1.ksplice") ne slurp("$tmp/r3.ksplice"),
	   '... and another manifest gives another file');
}

my $manifest_text = "format: 2\nid: $id\nkernel_release: $release\n" .
	"target: vmlinux\ncreated_by: update-file-test\n" .
	"function: do_foo\nfunction: do_bar.isra.0\n" .
	"member_sha256: ksplice_$id.ko " . sha256_hex($upd_data) . "\n" .
	"member_sha256: ksplice.ko " . sha256_hex($core_data) . "\n";

my $n = 0;
sub fresh_dir {
	my $d = "$tmp/x" . $n++;
	make_path($d);
	return $d;
}

sub extract {
	my ($file) = @_;
	my $d = fresh_dir();
	return (run($helper, 'extract', $file, $d), $d);
}

{
	my ($st, $out, $err, $d) = extract($good);
	is($st, 0, 'round trip: extract succeeds') or diag($err);
	is($out, $manifest_text, 'round trip: the manifest reads back as written');
	is(slurp("$d/ksplice.ko"), $core_data,
	   'round trip: ksplice.ko is byte for byte the same');
	is(slurp("$d/ksplice_$id.ko"), $upd_data,
	   "round trip: ksplice_$id.ko is byte for byte the same");
	opendir(my $dh, $d);
	is_deeply([sort grep { !/^\./ } readdir $dh],
		  ['ksplice.ko', "ksplice_$id.ko", 'manifest'],
		  'round trip: exactly the three members are extracted');
}

{
	# A planted symlink must not be followed, nor a file overwritten.
	my $d = fresh_dir();
	spew("$tmp/victim", "precious\n");
	symlink("$tmp/victim", "$d/ksplice.ko") or die;
	my ($st, undef, $err) = run($helper, 'extract', $good, $d);
	isnt($st, 0, 'extract refuses to write through a file already in the directory');
	is(slurp("$tmp/victim"), "precious\n", '... and the symlink target is untouched');
}

($st, $out, $err) = write_update("$tmp/badid.ksplice", $release, 'Bad-Id');
isnt($st, 0, 'update_file_write refuses an invalid id');
like($err, qr/invalid update id 'Bad-Id'/, '... saying so');
ok(!-e "$tmp/badid.ksplice", '... and writes nothing');

spew("$src/extra.ko", 'x');
($st, $out, $err) = run($helper, 'write', "$tmp/extra.ksplice", $id, $release,
			"$src/extra.ko", "$src/ksplice.ko", 'f');
isnt($st, 0, 'update_file_write refuses a file that does not belong');
like($err, qr/only ksplice_$id\.ko and ksplice\.ko belong/, '... saying so');

# Damaged copies of the good file.
my $bytes = slurp($good);
sub damaged {
	my ($name, $data) = @_;
	spew("$tmp/$name", $data);
	return "$tmp/$name";
}

my %damage = (
	'truncated to half' => substr($bytes, 0, length($bytes) / 2),
	'missing its last byte' => substr($bytes, 0, length($bytes) - 1),
	'missing its gzip trailer' => substr($bytes, 0, length($bytes) - 8),
	'with a bit flipped in the middle' => do {
		my $b = $bytes;
		my $i = int(length($b) / 2);
		substr($b, $i, 1) = chr(ord(substr($b, $i, 1)) ^ 0x10);
		$b;
	},
	'with a bit flipped in the CRC' => do {
		my $b = $bytes;
		my $i = length($b) - 6;
		substr($b, $i, 1) = chr(ord(substr($b, $i, 1)) ^ 0x01);
		$b;
	},
	'with junk appended' => $bytes . "junk",
);
for my $what (sort keys %damage) {
	(my $name = $what) =~ tr/a-z/_/c;
	my ($st, undef, $err) = extract(damaged("$name.ksplice", $damage{$what}));
	is($st, 1, "extract refuses a file $what");
	like($err, qr/is corrupt or truncated/, '... calling it corrupt or truncated');
}

{
	my ($st, undef, $err) = extract(damaged('plain.ksplice', "just text\n" x 10));
	is($st, 1, 'extract refuses a file that is not gzip data');
	like($err, qr/not a ksplice update file \(not gzip data\)/, '... saying so');
}

# Hand-made archives, holding what update_file_write() would not write.
sub manifest {
	my (%o) = (id => $id, kernel_release => $release, @_);
	my $m = '';
	$m .= "format: " . ($o{format} // 1) . "\n";
	for my $k (qw(id kernel_release target)) {
		$m .= "$k: $o{$k}\n" if defined $o{$k};
	}
	$m .= "target: vmlinux\n" unless exists $o{target};
	$m .= "function: do_foo\n" unless $o{no_function};
	$m .= $o{extra} // '';
	return $m;
}

sub craft {
	my ($name, @members) = @_;
	my $out = "$tmp/$name.tgz";
	my ($st, undef, $err) = run($helper, 'craft', $out, @members);
	die "craft $name: $err" if $st;
	return $out;
}

my @mods = ("ksplice_$id.ko:text:update", "ksplice.ko:text:core");
my $m = manifest();

{
	my ($st, $out, $err) = extract(craft('crafted-ok', "manifest:text:$m", @mods));
	is($st, 0, 'a hand-made archive with the right members is accepted')
		or diag($err);
}

my @refusals = (
	['a ../ path', [ "manifest:text:$m", @mods, '../evil:text:pwned' ],
	 qr/member '\.\.\/evil' has an unsafe path/],
	['an absolute path', [ "manifest:text:$m", @mods, "$tmp/abs-evil:text:pwned" ],
	 qr/member '\Q$tmp\E\/abs-evil' has an unsafe path/],
	['a missing manifest', [ @mods ], qr/has no manifest/],
	['a symlink member', [ "manifest:text:$m", "ksplice_$id.ko:text:u",
			       'ksplice.ko:symlink:/etc/passwd' ],
	 qr/member 'ksplice\.ko' is a symbolic link/],
	['a hard link member', [ "manifest:text:$m", "ksplice_$id.ko:text:u",
				 'ksplice.ko:hardlink:manifest' ],
	 qr/member 'ksplice\.ko' is a hard link/],
	['a directory member', [ "manifest:text:$m", @mods, 'sub:dir' ],
	 qr/member 'sub\/?' is not a regular file/],
	['an unexpected member', [ "manifest:text:$m", @mods, 'README:text:hi' ],
	 qr/member 'README' is not expected/],
	['a second update module', [ "manifest:text:$m", @mods, 'ksplice_other.ko:text:x' ],
	 qr/member 'ksplice_other\.ko' is a second update module/],
	['a duplicate manifest', [ "manifest:text:$m", "manifest:text:$m", @mods ],
	 qr/member 'manifest' appears twice/],
	['an oversized member', [ "manifest:text:$m", "ksplice_$id.ko:text:u",
				  'ksplice.ko:zeros:' . (64 * 1024 * 1024 + 1) ],
	 qr/member 'ksplice\.ko' is 67108865 bytes, more than the 67108864 byte limit/],
	['a missing core module', [ "manifest:text:$m", "ksplice_$id.ko:text:u" ],
	 qr/has no core module ksplice\.ko/],
	['a missing update module', [ "manifest:text:$m", 'ksplice.ko:text:c' ],
	 qr/has no update module ksplice_$id\.ko/],
	['a module not matching the id', [ "manifest:text:$m", 'ksplice_other.ko:text:u',
					   'ksplice.ko:text:c' ],
	 qr/update module 'ksplice_other\.ko' does not match the manifest id '$id'/],
	['a bad id', [ 'manifest:text:' . manifest(id => 'Bad-Id'), @mods ],
	 qr/invalid update id 'Bad-Id'/],
	['a 33-character id', [ 'manifest:text:' . manifest(id => 'a' x 33), @mods ],
	 qr/invalid update id 'a{33}'/],
	['an unknown format', [ 'manifest:text:' . manifest(format => 7), @mods ],
	 qr/update file format 7 is not supported/],
	['a gzip that is not a tar', [], undef],
);
for my $r (@refusals) {
	my ($what, $members, $re) = @$r;
	(my $name = $what) =~ tr/a-z/_/c;
	my $file;
	if (@$members) {
		$file = craft($name, @$members);
	} else {
		$file = "$tmp/$name.gz";
		system("printf 'hello\\n' | gzip > '$file'") == 0 or die;
		$re = qr/is not a valid ksplice update file/;
	}
	my ($st, undef, $err, $d) = extract($file);
	is($st, 1, "extract refuses an archive with $what");
	like($err, $re, '... saying why');
}
ok(!-e "$tmp/evil" && !-e "$tmp/x/evil" && !-e "$tmp/abs-evil",
   'no refused member was written outside the directory');

# Format 2: each module's sha256 in the manifest, checked on extraction.
sub manifest2 {
	my ($upd, $core, $extra) = @_;
	my $m = manifest(format => 2, extra => $extra // '');
	$m .= "member_sha256: ksplice_$id.ko " . sha256_hex($upd) . "\n" if defined $upd;
	$m .= "member_sha256: ksplice.ko " . sha256_hex($core) . "\n" if defined $core;
	return $m;
}
{
	my $m2 = manifest2('update', 'core');
	my ($st, undef, $err) = extract(craft('digest-ok', "manifest:text:$m2", @mods));
	is($st, 0, 'format 2: members matching their sha256 are accepted') or diag($err);
	($st, undef, $err) = extract(craft('digest-upd', "manifest:text:$m2",
		"ksplice_$id.ko:text:updatf", 'ksplice.ko:text:core'));
	is($st, 1, 'format 2: a changed byte in the update module is refused');
	like($err, qr/member 'ksplice_\Q$id\E\.ko' does not match its sha256/, '... naming it');
	($st, undef, $err) = extract(craft('digest-core', "manifest:text:$m2",
		"ksplice_$id.ko:text:update", 'ksplice.ko:text:corf'));
	is($st, 1, 'format 2: a changed byte in the core module is refused');
	like($err, qr/member 'ksplice\.ko' does not match its sha256/, '... naming it');
	($st, undef, $err) = extract(craft('digest-none', 'manifest:text:' .
		manifest2('update', undef), @mods));
	is($st, 1, 'format 2: a module without its sha256 is refused');
	like($err, qr/no member_sha256 for 'ksplice\.ko'/, '... naming it');
	($st, undef, $err) = extract(craft('digest-bad', 'manifest:text:' .
		manifest2('update', undef, "member_sha256: ksplice.ko 12ab\n"), @mods));
	is($st, 1, 'format 2: a malformed sha256 is refused');
	like($err, qr/invalid member_sha256 'ksplice\.ko 12ab'/, '... saying so');
	($st, undef, $err) = extract(craft('digest-f1', 'manifest:text:' .
		manifest(extra => "member_sha256: ksplice.ko " . sha256_hex('core') . "\n"), @mods));
	is($st, 1, 'format 1 has no member_sha256 key');
	like($err, qr/unknown key 'member_sha256'/, '... saying so');
}
{
	# A file update_file_write() made, its tar rebuilt with one byte of a
	# member flipped: the gzip CRC is right, the digest is not.
	my ($st, undef, $err, $d) = extract($good);
	is($st, 0, 'the written file extracts') or diag($err);
	my $ok = craft('rebuilt-ok', "manifest:file:$d/manifest",
		       "ksplice_$id.ko:file:$d/ksplice_$id.ko", "ksplice.ko:file:$d/ksplice.ko");
	($st, undef, $err) = extract($ok);
	is($st, 0, 'its members packed again unchanged are accepted') or diag($err);
	my $core = slurp("$d/ksplice.ko");
	substr($core, 40000, 1) = chr(ord(substr($core, 40000, 1)) ^ 1);
	spew("$tmp/flipped.ko", $core);
	my $bad = craft('rebuilt-flip', "manifest:file:$d/manifest",
			"ksplice_$id.ko:file:$d/ksplice_$id.ko", "ksplice.ko:file:$tmp/flipped.ko");
	($st, undef, $err) = extract($bad);
	is($st, 1, 'one flipped bit in its ksplice.ko is refused');
	like($err, qr/member 'ksplice\.ko' does not match its sha256 in the manifest/,
	     '... naming the member');
}

# The manifest parser on its own.
my @manifests = (
	['an unknown key', manifest(extra => "colour: blue\n"), qr/unknown key 'colour'/],
	['a duplicate id', manifest(extra => "id: other\n"), qr/'id' given twice/],
	['no function', manifest(no_function => 1), qr/no 'function', 'hook', 'data' or 'export' line/],
	['a data line before format 5', manifest(format => 4, extra => "data: tab\n"),
	 qr/unknown key 'data'/],
	['a data name with a space', manifest(format => 5, extra => "data: a b\n"),
	 qr/invalid data name 'a b'/],
	['an export line before format 6', manifest(format => 5, extra => "export: vmlinux f\n"),
	 qr/unknown key 'export'/],
	['an export without its target', manifest(format => 6, extra => "export: f\n"),
	 qr/invalid export 'f': expected TARGET NAME/],
	['a hook line before format 4', manifest(format => 3, extra => "hook: stop-apply f\n"),
	 qr/unknown key 'hook'/],
	['a hook of an unknown kind', manifest(format => 4, extra => "hook: mid-apply f\n"),
	 qr/invalid hook 'mid-apply f'/],
	['a hook without a function', manifest(format => 4, extra => "hook: stop-apply\n"),
	 qr/invalid hook 'stop-apply'/],
	['no kernel_release', manifest(kernel_release => undef), qr/no 'kernel_release' line/],
	['no format', "id: $id\n", qr/no 'format' line/],
	['a second, different format', manifest(extra => "format: 2\n"),
	 qr/conflicting format lines/],
	['a malformed line', manifest(extra => "function do_bar\n"),
	 qr/line 6 is not 'key: value'/],
	['a function with a space', manifest(extra => "function: a b\n"),
	 qr/invalid function name 'a b'/],
	['a bad target', manifest(target => '../x'), qr/invalid target/],
	['two spaces between targets', manifest(target => 'vmlinux  nfsd'), qr/invalid target/],
	['a space after the targets', manifest(target => 'vmlinux '), qr/invalid target/],
	['a load symbol without a name', manifest(extra => "load_symbol: ext4\n"),
	 qr/invalid load_symbol 'ext4'/],
	['a load symbol of a bad module name', manifest(extra => "load_symbol: ../x key\n"),
	 qr/invalid load_symbol/],
);
for my $c (@manifests) {
	my ($what, $text, $re) = @$c;
	spew("$tmp/manifest", $text);
	my ($st, undef, $err) = run($helper, 'parse', "$tmp/manifest");
	is($st, 1, "manifest_parse refuses a manifest with $what");
	like($err, $re, '... saying why');
}
spew("$tmp/manifest", manifest(target => 'vmlinux nfsd',
				extra => "load_symbol: nfsd __tracepoint_nfsd_x\n"));
($st, $out, $err) = run($helper, 'parse', "$tmp/manifest");
is($st, 0, 'manifest_parse accepts several targets and a load symbol') or diag($err);
like($out, qr/target: vmlinux nfsd\n.*load_symbol: nfsd __tracepoint_nfsd_x\n/s, '... and keeps them');
spew("$tmp/manifest", manifest(format => 4, no_function => 1,
				extra => "hook: stop-apply a_stop\nhook: pre-undo b_pre\n"));
($st, $out, $err) = run($helper, 'parse', "$tmp/manifest");
is($st, 0, 'manifest_parse accepts an update of hooks alone (format 4)') or diag($err);
like($out, qr/hook: stop-apply a_stop\nhook: pre-undo b_pre\n/, '... and keeps its hooks in order');
unlike($out, qr/function:/, '... with no function');
spew("$tmp/manifest", manifest(format => 5, no_function => 1, extra => "data: seg6_genl_policy\n"));
($st, $out, $err) = run($helper, 'parse', "$tmp/manifest");
is($st, 0, 'manifest_parse accepts an update of read-only data alone (format 5)') or diag($err);
like($out, qr/data: seg6_genl_policy\n/, '... and keeps its data line');
spew("$tmp/manifest", manifest(extra => "# a comment\n\nfunction: do_bar\n"));
($st, $out, $err) = run($helper, 'parse', "$tmp/manifest");
is($st, 0, 'manifest_parse accepts comments and blank lines') or diag($err);
like($out, qr/function: do_foo\nfunction: do_bar\n/, '... and keeps repeated functions in order');

# ---- the tools, against a fake sysfs tree ----

my $sysfs = "$tmp/sysfs";
my $tooltmp = "$tmp/tooltmp";
make_path($tooltmp);
$ENV{TMPDIR} = $tooltmp;
$ENV{KSPLICE_SYSFS} = $sysfs;
$ENV{KSPLICE_RUN} = "$tmp/run";

# A fresh tree with update $uid in it, attributes as the core makes them.
sub fake_update {
	my ($uid, %attrs) = @_;
	my %a = (stage => 'loaded', abort_cause => 'none', abort_detail => '',
		 conflicts => '', max_tries => 5, retry_interval_ms => 10,
		 functions => "do_foo ffffffff81000000 ffffffffc0001000\n" .
			      "do_bar.isra.0 ffffffff81000100 ffffffffc0002000",
		 %attrs);
	make_path("$sysfs/$uid");
	for my $k (keys %a) {
		spew("$sysfs/$uid/$k", $a{$k} eq '' ? '' : "$a{$k}\n");
	}
}

sub reset_sysfs {
	remove_tree($sysfs);
	make_path($sysfs);
}

sub tooltmp_empty {
	opendir(my $dh, $tooltmp) or return 0;
	return !grep { !/^\.\.?$/ } readdir $dh;
}

# A fake core answering the tool's accesses to $uid's stage through a
# FIFO, in order, as the kernel's sysfs would: each step is either
# [read => VALUE] (the tool reads VALUE) or [write => CODE] (the tool
# writes; CODE gets the value, as the core's store would).  A tool that
# strays from the protocol blocks until both time out.
sub fake_core {
	my ($uid, @steps) = @_;
	my $stage = "$sysfs/$uid/stage";
	unlink $stage;
	mkfifo($stage, 0600) or die "mkfifo: $!";
	my $pid = fork // die "fork: $!";
	return $pid if $pid;
	alarm 20;
	for my $s (@steps) {
		my ($op, $arg) = @$s;
		if ($op eq 'read') {
			open my $fh, '>', $stage or POSIX::_exit(1);
			print $fh "$arg\n";
			close $fh;
		} else {
			open my $fh, '<', $stage or POSIX::_exit(1);
			local $/;
			my $got = <$fh>;
			close $fh;
			$arg->($got);
		}
	}
	POSIX::_exit(0);
}

# Whether the fake core went through all its steps.
sub core_done {
	my ($pid) = @_;
	for (1 .. 50) {
		return $? == 0 if waitpid($pid, WNOHANG) == $pid;
		select(undef, undef, undef, 0.1);
	}
	kill 'KILL', $pid;
	waitpid($pid, 0);
	return 0;
}

my $load_re = qr/would load module \S+\/ksplice_$id\.ko/;
my $unload_re = qr/would unload module ksplice_$id\b/;

# apply: success
reset_sysfs();
fake_update($id);
($st, $out, $err) = run('bin/ksplice-apply', '--max-tries', 7,
			'--retry-interval', 50, $good);
is($st, 0, 'apply: succeeds when the stage reads back applied') or diag($err);
like($out, qr/^Done! Applied update $id\n/, '... says Done!');
like($out, qr/replaced do_foo\n.*replaced do_bar\.isra\.0\n/s, '... names the functions');
like($err, $load_re, '... loads the update module');
unlike($err, qr/ksplice\.ko/, '... but not the core, whose sysfs is there');
unlike($err, $unload_re, '... and unloads nothing');
is(slurp("$sysfs/$id/stage"), "applied\n", '... wrote applied to the stage');
is(slurp("$sysfs/$id/max_tries"), "7\n", '... and --max-tries to max_tries');
is(slurp("$sysfs/$id/retry_interval_ms"), "50\n",
   '... and --retry-interval to retry_interval_ms');
ok(tooltmp_empty(), '... and removed its temporary directory');

# apply: already applied
($st, $out, $err) = run('bin/ksplice-apply', $good);
is($st, 1, 'apply: fails if the update is already applied');
like($err, qr/update $id is already applied/, '... saying so');
unlike($err, $load_re, '... without loading anything');

# apply: wrong kernel
{
	my $other = "$tmp/other.ksplice";
	my ($st) = write_update($other, '0.0.1-not-running');
	reset_sysfs();
	fake_update($id);
	my ($st2, $out, $err) = run('bin/ksplice-apply', $other);
	is($st2, 1, 'apply: refuses an update built for another kernel');
	like($err, qr/built for kernel 0\.0\.1-not-running, but the running kernel is \Q$release\E/,
	     '... naming both releases');
	unlike($err, $load_re, '... without loading anything');
	is(slurp("$sysfs/$id/stage"), "loaded\n", '... or touching the stage');
	ok(tooltmp_empty(), '... and removes its temporary directory');
}

# apply: a damaged update file
{
	my ($st, $out, $err) = run('bin/ksplice-apply',
		"$tmp/with_a_bit_flipped_in_the_middle.ksplice");
	is($st, 1, 'apply: refuses a damaged update file');
	like($err, qr/is corrupt or truncated/, '... saying so');
	unlike($err, qr/would load/, '... without loading anything');
	ok(tooltmp_empty(), '... and removes its temporary directory');
}

# apply: no core yet
{
	local $ENV{KSPLICE_SYSFS} = "$tmp/no-such-sysfs";
	my ($st, $out, $err) = run('bin/ksplice-apply', $good);
	like($err, qr/would load module \S+\/ksplice\.ko\n.*$load_re/s,
	     'apply: loads the bundled core first when its sysfs is missing');
	like($err, qr/ksplice_$id is loaded but \S+ did not appear/,
	     '... then notices the update did not register');
	like($err, $unload_re, '... and unloads the update module');
	is($st, 1, '... and fails');
}

# apply: the core refuses, for each abort cause
my %causes = (
	no_match => [ 'function do_foo differs at offset 0x1c',
		      qr/could not apply update $id: the update was not built from this kernel's source\n.*function do_foo differs at offset 0x1c\n.*Rebuild the update against the source of the running kernel \(\Q$release\E\)/s ],
	code_busy => [ '',
		       qr/tasks were running the code being replaced in every try \(5 tries, 10 ms apart\).*\n.*bash \(pid 4242\) in do_foo\n.*my prog \(pid 77\) in do_bar\.isra\.0\n.*Retry later/s ],
	failed_to_find => [ 'symbol frob_table not found',
			    qr/a symbol the update needs is not in the running kernel\n.*symbol frob_table not found/s ],
	bad_update => [ 'relocation 3 of do_foo out of range',
			qr/rejected the update module as malformed\n.*relocation 3 of do_foo/s ],
	already_applied => [ 'do_foo is replaced by cve_2023_9',
			     qr/already replaced by an applied update\n.*do_foo is replaced by cve_2023_9/s ],
	unexpected => [ 'stop_machine failed: -12',
			qr/hit an unexpected error\n.*stop_machine failed: -12\n.*left unchanged/s ],
	out_of_memory => [ 'no memory for relocations',
			   qr/the kernel ran out of memory\n.*no memory for relocations\n.*free some memory/s ],
	not_applied => [ 'not applied',
			 qr/says the update is not applied/ ],
	mystery_cause => [ 'what',
			   qr/gave abort cause 'mystery_cause', which this ksplice does not know/ ],
);
for my $cause (sort keys %causes) {
	my ($detail, $re) = @{$causes{$cause}};
	reset_sysfs();
	fake_update($id);
	my $written = '';
	my $core = fake_core($id, [ read => 'loaded' ], [ write => sub {
		spew("$tmp/written", $_[0]);
		spew("$sysfs/$id/abort_cause", "$cause\n");
		spew("$sysfs/$id/abort_detail", "$detail\n");
		spew("$sysfs/$id/conflicts", "bash 4242 do_foo\nmy prog 77 do_bar.isra.0\n");
	} ], [ read => 'loaded' ]);
	my ($st, $out, $err) = run('bin/ksplice-apply', $good);
	ok(core_done($core), "apply ($cause): reads, writes, reads back the stage");
	is(slurp("$tmp/written"), "applied\n", "apply ($cause): wrote applied");
	is($st, 1, "apply ($cause): fails");
	like($err, $re, "apply ($cause): explains") or diag($err);
	like($err, $unload_re, "apply ($cause): unloads the update module");
	unlike($out, qr/Done!/, "apply ($cause): does not claim success");
	ok(tooltmp_empty(), "apply ($cause): removes its temporary directory");
}

# apply: the stage write itself fails, with no cause given
{
	reset_sysfs();
	fake_update($id);
	unlink "$sysfs/$id/stage";
	mkdir "$sysfs/$id/stage";	# writing a directory fails, even for root
	my ($st, $out, $err) = run('bin/ksplice-apply', $good);
	is($st, 1, 'apply: fails when the stage cannot be written');
	like($err, qr/writing 'applied' to \S+\/stage failed: Is a directory/,
	     '... naming the file and the error');
	like($err, $unload_re, '... and unloads the update module');
}

# apply: usage
($st, $out, $err) = run('bin/ksplice-apply');
is($st, 2, 'apply: no update file is a usage error');
like($err, qr/^Usage: ksplice-apply /, '... with a usage message');
($st, $out, $err) = run('bin/ksplice-apply', '--max-tries', 'lots', $good);
is($st, 1, 'apply: a non-numeric --max-tries is refused');
like($err, qr/--max-tries needs a whole number of at least 1, not 'lots'/, '... saying so');

# undo
reset_sysfs();
fake_update($id, stage => 'applied');
($st, $out, $err) = run('bin/ksplice-undo', $id);
is($st, 0, 'undo: succeeds when the stage reads back reversed') or diag($err);
is($out, "Done! Reversed update $id\n", '... says Done!');
is(slurp("$sysfs/$id/stage"), "reversed\n", '... wrote reversed to the stage');
like($err, $unload_re, '... and unloads the update module');

{
	reset_sysfs();
	fake_update($id);
	my $core = fake_core($id, [ read => 'applied' ], [ write => sub {
		spew("$tmp/written", $_[0]);
		spew("$sysfs/$id/abort_cause", "code_busy\n");
		spew("$sysfs/$id/conflicts", "nginx 31337 do_foo\n");
	} ], [ read => 'applied' ]);
	my ($st, $out, $err) = run('bin/ksplice-undo', $id);
	ok(core_done($core), 'undo (code_busy): reads, writes, reads back the stage');
	is(slurp("$tmp/written"), "reversed\n", 'undo (code_busy): wrote reversed');
	is($st, 1, 'undo (code_busy): fails');
	like($err, qr/could not reverse update $id: tasks were running the update's code in every try \(5 tries, 10 ms apart\).*\n.*nginx \(pid 31337\) in do_foo\n.*The update stays applied/s,
	     'undo (code_busy): explains') or diag($err);
	unlike($err, $unload_re, 'undo (code_busy): keeps the module of the applied update');
}

reset_sysfs();
fake_update('cve_2023_9', stage => 'applied');
($st, $out, $err) = run('bin/ksplice-undo', 'cve_nope');
is($st, 1, 'undo: an unknown id fails');
like($err, qr/no update cve_nope is loaded; loaded updates are:\n  cve_2023_9 \(applied\)/,
     '... listing the loaded updates');
reset_sysfs();
($st, $out, $err) = run('bin/ksplice-undo', 'cve_nope');
like($err, qr/no ksplice updates are loaded/, 'undo: says when nothing is loaded');
($st, $out, $err) = run('bin/ksplice-undo', '../x');
is($st, 1, 'undo: refuses something that is not an id');
like($err, qr/'\.\.\/x' is not an update id/, '... saying so');

# privilege: without CAP_SYS_MODULE, and without the fake, stop at once
SKIP: {
	my @drop;
	if ($> == 0) {
		@drop = ('setpriv', '--inh-caps=-sys_module',
			 '--bounding-set=-sys_module', '--');
	}
	# Only with CAP_SYS_MODULE really gone: then even a broken check
	# could not load anything.
	my $caps = `@drop grep CapEff /proc/self/status 2>/dev/null`;
	skip 'cannot drop CAP_SYS_MODULE here', 4
		unless $caps =~ /^CapEff:\s*([0-9a-f]+)/ && !(hex(substr($1, -8)) & (1 << 16));
	local $ENV{KSPLICE_FAKE_MODULES};
	delete $ENV{KSPLICE_FAKE_MODULES};
	reset_sysfs();
	fake_update($id, stage => 'applied');
	for my $tool (['ksplice-apply', $good], ['ksplice-undo', $id]) {
		my ($st, $out, $err) = run(@drop, "bin/$tool->[0]", $tool->[1]);
		is($st, 1, "$tool->[0]: fails without CAP_SYS_MODULE");
		is($err, "$tool->[0]: must be run as root (CAP_SYS_MODULE)\n",
		   '... saying only that');
	}
}

# view
reset_sysfs();
($st, $out, $err) = run('bin/ksplice-view');
is($st, 0, 'view: succeeds with no updates');
is($out, "No ksplice updates are loaded.\n", '... and says so');
{
	local $ENV{KSPLICE_SYSFS} = "$tmp/no-such-sysfs";
	($st, $out) = run('bin/ksplice-view');
	is($out, "No ksplice updates are loaded.\n", 'view: the same without the core');
}
fake_update($id, stage => 'applied', pause_ns => 12345);
fake_update('cve_2023_9', stage => 'reversed', functions => "do_baz 1 2\n");
spew("$sysfs/version", "1\n");		# not an update: a file in the root
($st, $out, $err) = run('bin/ksplice-view');
is($st, 0, 'view: lists updates');
like($out, qr/\Acve_2023_9\s+reversed\s+do_baz\ncve_2024_1\s+applied\s+do_foo do_bar\.isra\.0\n\z/,
     '... one line each: id, stage, functions, sorted by id');
($st, $out, $err) = run('bin/ksplice-view', $id);
is($st, 0, 'view ID: succeeds');
like($out, qr/^stage\s+applied$/m, '... shows the stage');
like($out, qr/^abort_cause\s+none$/m, '... the abort cause');
like($out, qr/^abort_detail\s+\(none\)$/m, '... the abort detail');
like($out, qr/^conflicts\s+\(none\)$/m, '... the conflicts');
like($out, qr/^functions:\n  do_foo ffffffff81000000 ffffffffc0001000\n  do_bar\.isra\.0 /m,
     '... the functions');
like($out, qr/^pause_ns\s+12345$/m, '... and other attributes, such as pause_ns');
($st, $out, $err) = run('bin/ksplice-view', 'cve_nope');
is($st, 1, 'view ID: an unknown id fails');
like($err, qr/no update cve_nope is loaded/, '... saying so');

done_testing();
