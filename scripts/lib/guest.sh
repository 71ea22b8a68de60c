# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# What the qemu guest tests share (scripts/test-kernels, scripts/test-systemd):
# messages, Debian's kernels fetched into a cache, one guest run under a
# timeout, and the verdict read from its console.  Sourced, not run; the
# script sets before sourcing:
#
#   guest_tag      the word its messages start with (kernels, systemd)
#   guest_name     its name for errors (test-kernels)
#   cache          where the kernels are kept ($LOCKSTALL_KERNEL_CACHE)
#   guest_timeout  seconds a guest may run before it is killed as a hang
#   guest_memory   the guest's memory, as qemu's -m takes it (default 1G)
#   guest_tcg      qemu's TCG threads: multi (default, a host thread per
#                  guest CPU) or single (one host thread for both)
#
# A guest reports on its console in lines "LOCKSTALL-RESULT: ...": one
# "kernel=... boot_s=..." line, any number with "status=pass|fail", and a
# last "done rc=N"; guest_verdict reads them.

required=
[ "${LOCKSTALL_E2E:-}" = required ] && required=1

say() {
	printf '  %-8s %s\n' "$guest_tag" "$*"
}

die() {
	echo "lockstall: $guest_name: $*" >&2
	exit 1
}

skip() {
	say "skipped: $*"
	[ -z "$required" ] || die "LOCKSTALL_E2E=required, but $*"
	exit 0
}

# What every guest test needs: qemu, and apt's tools to fetch the kernels.
need_qemu_and_apt() {
	command -v qemu-system-x86_64 >/dev/null ||
		skip "qemu-system-x86_64 is missing (apt-get install qemu-system-x86)"
	command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
		skip "apt-get and dpkg-deb are needed to fetch Debian's kernels"
}

# A directory as an initramfs (newc cpio) on stdout, with busybox's cpio
# ($busybox); files keep their owners when made as root.
make_cpio() {
	(cd "$1" && find . | "$busybox" cpio -o -H newc 2>/dev/null)
}

# apt options for a suite other than the host's ($1 empty: none): a sources
# list, lists and caches in $cache/apt-SUITE, nothing of the system's
# changed.  InRelease is checked against Debian's archive keys as for the
# host's own sources (debian-archive-keyring has the older suites').
apt_opts=
suite_apt() {
	suite=$1
	apt_opts=
	[ -n "$suite" ] || return 0
	adir=$cache/apt-$suite
	apt_opts="-o Dir::Etc::SourceList=$adir/sources.list -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists=$adir/lists -o Dir::Cache=$adir/cache -o APT::Architectures=amd64
		-o Acquire::Languages=none"
	mkdir -p "$adir/lists/partial" "$adir/cache/archives/partial"
	cat >"$adir/sources.list" <<-EOF
	deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main
	deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security $suite-security main
	EOF
	# first use: its lists (a later missing .deb updates them again, below)
	ls "$adir/lists/"*_Packages >/dev/null 2>&1 || suite_update
}

suite_update() {
	# shellcheck disable=SC2086 # apt_opts: words on purpose
	apt-get $apt_opts update -qq >&2 || die "apt-get update for Debian $suite failed: is deb.debian.org reachable?"
}

# linux-image-<flavour> -> linux-image-6.1.0-N-<flavour>, from apt's lists.
resolve_package() {
	# shellcheck disable=SC2086
	apt-cache $apt_opts depends "linux-image-$1" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1
}

# The .deb of a package in the cache; downloaded when missing.  apt's lists
# may be older than the archive (a superseded version is gone): then, as
# root, update them once and try again.
fetch_deb() {
	pkg=$1
	deb=$(ls "$cache/debs/${pkg}_"*.deb 2>/dev/null | tail -n 1 || true)
	if [ -z "$deb" ]; then
		# stderr: stdout is the path the caller captures
		say "downloading $pkg" >&2
		# shellcheck disable=SC2086
		if ! (cd "$cache/debs" && apt-get $apt_opts download -qq "$pkg" >&2 2>/dev/null); then
			[ "$(id -u)" -eq 0 ] || die "apt-get download $pkg failed; as root, run apt-get update first"
			if [ -n "$apt_opts" ]; then suite_update; else apt-get update -qq >&2; fi
			# shellcheck disable=SC2086
			(cd "$cache/debs" && apt-get $apt_opts download -qq "$pkg" >&2 2>/dev/null) ||
				die "apt-get download $pkg failed: is Debian's archive reachable?"
		fi
		deb=$(ls "$cache/debs/${pkg}_"*.deb | tail -n 1)
	fi
	echo "$deb"
}

# Debian's current kernel of [SUITE/]FLAVOUR (bullseye/amd64; no suite: the
# host's) in the cache, fetched and unpacked when missing: prints its
# release (6.1.0-N-amd64).  $cache/<release>/ then has vmlinuz, config, and
# x/ with /boot, the modules a guest may need and the list of those built
# in (modules.builtin: 6.12 builds virtio_pci in).  A cache unpacked before
# the disk's modules were a guest's need is unpacked again.
fetch_kernel() {
	spec=$1
	case $spec in
	*/*) suite=${spec%%/*} flavour=${spec#*/} ;;
	*) suite= flavour=$spec ;;
	esac
	mkdir -p "$cache/debs"
	suite_apt "$suite"
	pkg=$(resolve_package "$flavour")
	# Offline, or lists not updated: the package this spec resolved to last.
	last=$cache/last-package-$(echo "$spec" | tr / _)
	[ -n "$pkg" ] || pkg=$(cat "$last" 2>/dev/null || true)
	if [ -z "$pkg" ] && [ -z "$suite" ]; then
		# a cache from before those notes: its newest .deb of the flavour
		pkg=$(ls "$cache/debs" 2>/dev/null | sed -n "s/^\(linux-image-[0-9].*-$flavour\)_.*\.deb$/\1/p" |
			sort -V | tail -n 1)
	fi
	[ -n "$pkg" ] || die "apt-cache knows no linux-image-$flavour${suite:+ in $suite}: run apt-get update"
	echo "$pkg" >"$last"
	release=${pkg#linux-image-}
	kdir=$cache/$release
	if [ ! -f "$kdir/vmlinuz" ] || [ ! -d "$kdir/x/lib/modules/$release/kernel/crypto" ]; then
		deb=$(fetch_deb "$pkg")
		rm -rf "$kdir"
		mkdir -p "$kdir/x"
		dpkg-deb --fsys-tarfile "$deb" |
			tar -x -C "$kdir/x" --wildcards './boot/*' './lib/modules/*/modules.builtin' \
				'./lib/modules/*/kernel/fs/*' './lib/modules/*/kernel/net/9p/*' \
				'./lib/modules/*/kernel/drivers/virtio/*' \
				'./lib/modules/*/kernel/drivers/block/*' './lib/modules/*/kernel/lib/*' \
				'./lib/modules/*/kernel/crypto/*'
		cp "$kdir/x/boot/config-$release" "$kdir/config"
		mv "$kdir/x/boot/vmlinuz-$release" "$kdir/vmlinuz"
	fi
	echo "$release"
}

# One guest: KERNEL INITRD APPEND LOG [more qemu arguments].  TCG (KVM
# cannot boot stock kernels on these machines), 2 CPUs, the console on
# ttyS0 into LOG.  Returns qemu's status; 137 is a guest killed after
# $guest_timeout seconds.
run_guest() {
	kernel=$1 initrd=$2 append=$3 log=$4
	shift 4
	rc=0
	timeout -s KILL "$guest_timeout" qemu-system-x86_64 \
		-accel "tcg,thread=${guest_tcg:-multi}" -cpu max -smp 2 -m "${guest_memory:-1G}" \
		-nographic -no-reboot -nodefaults -serial stdio \
		-kernel "$kernel" -initrd "$initrd" -append "console=ttyS0 panic=-1 $append" \
		"$@" </dev/null >"$log" 2>&1 || rc=$?
	return $rc
}

# The verdict of a guest: LABEL QEMU-STATUS LOG SECONDS.  Prints one line
# per check and the guest's cost; returns 1 on a hang, a guest that ended
# without its "done" line, or any check that did not pass.
guest_verdict() {
	label=$1 qrc=$2 log=$3 secs=$4
	verdict=0
	results=$(tr -d '\r' <"$log" | sed -n 's/.*LOCKSTALL-RESULT: //p')
	if [ "$qrc" -eq 137 ]; then
		say "$label: HANG, killed after ${guest_timeout}s (console: $log)"
		verdict=1
	elif ! echo "$results" | grep -q '^done'; then
		say "$label: FAIL, the guest ended without finishing (qemu status $qrc; console: $log)"
		echo "$results" | grep '^boot=' | sed 's/^/           /' || true
		verdict=1
	fi
	boot=$(echo "$results" | sed -n 's/.*boot_s=\([0-9.]*\).*/\1/p')
	echo "$results" | grep 'status=' | while read -r line; do
		say "$label $line"
	done
	if echo "$results" | grep 'status=' | grep -qv 'status=pass'; then
		say "$label: failures, see $log"
		verdict=1
	fi
	say "$label: guest cycle ${secs}s, boot to tests ${boot:-?}s"
	return $verdict
}
