# A copy of the pinned source (hard links) that differs from the running
# kernel's at the places tests 67 and 68 check matching is strict:
#  - kernel/printk/printk.c: info_print_prefix stores "_\0" where the
#    running kernel stores " \0" (a 2-byte constant of .rodata.cst2);
#  - arch/x86/include/asm/paravirt.h: arch_local_save_flags' native form
#    is "pushf; pop %rax; cld" where the running kernel's is "pushf; pop %rax";
#  - fs/proc/base.c: tgid_base_stuff has its last entry twice (test 69:
#    the code's pointer to the array's end is 40 bytes further).
# Source after update.sh; skew_match_source prints its path.
skew_match_source() {
	local src skew f
	src=$(ksplice_source)
	skew=${KSPLICE_CACHE:-$HOME/.cache/ksplice}/skewed-match-source
	if [ ! -e "$skew/.complete" ]; then
		rm -rf "$skew"; mkdir -p "$skew"
		cp -al "$src" "$skew/linux" || return
		f=$skew/linux/kernel/printk/printk.c
		sed "s/^\t\tbuf\[len++\] = ' ';$/\t\tbuf[len++] = '_';/" "$f" >"$f.new" && mv "$f.new" "$f"
		f=$skew/linux/arch/x86/include/asm/paravirt.h
		sed 's/irq.save_fl, "pushf; pop %%rax;",$/irq.save_fl, "pushf; pop %%rax; cld;",/' "$f" >"$f.new" && mv "$f.new" "$f"
		f=$skew/linux/fs/proc/base.c
		sed 's/^\tONE("ksm_stat",  S_IRUSR, proc_pid_ksm_stat),$/&\n&/' "$f" >"$f.new" && mv "$f.new" "$f"
		[ "$(grep -c 'ONE("ksm_stat"' "$f")" -eq 4 ] || return
		f=$skew/linux/arch/x86/include/asm/paravirt.h
		[ "$(grep -c "buf\[len++\] = '_';" "$skew/linux/kernel/printk/printk.c")" -eq 1 ] &&
		[ "$(grep -c 'pop %%rax; cld;' "$f")" -eq 1 ] || return
		touch "$skew/.complete"
	fi
	printf '%s\n' "$skew/linux"
}
