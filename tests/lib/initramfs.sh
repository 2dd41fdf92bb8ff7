# tests/lib/initramfs.sh - build a busybox initramfs for qemu guests (sourced).
#
#   . tests/lib/initramfs.sh
#   ird_new DIR                   empty root with the usual directories
#   ird_busybox DIR               /bin/busybox (static) and its applet links
#   ird_bin DIR BIN...            a dynamic binary into /bin with its libraries
#   ird_module DIR KVER MOD...    modules (decompressed) and their dependencies
#                                 into /modules; the load order is appended to
#                                 /modules/order (dependencies first)
#   ird_kmod_tree DEST MODDIR MOD...  modules as their kernel package has them
#                                 (path, compression) under MODDIR (a kernel's
#                                 lib/modules/KVER) copied to DEST, with what
#                                 depmod reads besides them: for Debian's kmod
#                                 (depmod, modprobe) in a guest
#   ird_pack DIR OUT              newc cpio, gzip -1
#
# Every function returns non-zero with a message on stderr when something is
# missing, so a caller can `|| fail`.

ird_new() {
	rm -rf "$1" || return 1
	mkdir -p "$1"/bin "$1"/sbin "$1"/lib "$1"/lib64 "$1"/proc "$1"/sys \
		"$1"/dev "$1"/tmp "$1"/run "$1"/etc "$1"/modules "$1"/usr/bin || return 1
	echo "root:x:0:0:root:/:/bin/sh" >"$1"/etc/passwd
	echo "root:x:0:" >"$1"/etc/group
	: >"$1"/modules/order
}

ird_busybox() {
	_bb=${BUSYBOX:-/bin/busybox}
	if ! [ -x "$_bb" ] || ! LC_ALL=C ldd "$_bb" 2>&1 | grep -q 'not a dynamic'; then
		echo "initramfs: $_bb is not a static busybox (apt-get install busybox-static)" >&2
		return 1
	fi
	cp "$_bb" "$1"/bin/busybox || return 1
	for _a in $("$_bb" --list); do
		[ -e "$1/bin/$_a" ] || ln -s busybox "$1/bin/$_a"
	done
}

ird_bin() {
	_r=$1
	shift
	for _b in "$@"; do
		[ -x "$_b" ] || { echo "initramfs: $_b is missing" >&2; return 1; }
		rm -f "$_r/bin/$(basename "$_b")"
		cp "$_b" "$_r/bin/" || return 1
		for _l in $(ldd "$_b" 2>/dev/null |
			awk '/=> \// { print $3 } /^[ \t]*\/lib/ { print $1 }'); do
			[ -f "$_l" ] || continue
			mkdir -p "$_r$(dirname "$_l")"
			cp -L "$_l" "$_r$_l" || return 1
		done
	done
}

# One module and (first) everything it depends on, once each.
_ird_mod1() {
	_ir=$1 _ik=$2 _im=$3
	grep -qx "$_im" "$_ir/modules/order" && return 0
	_f=$(modinfo -k "$_ik" -n "$_im" 2>/dev/null) || {
		echo "initramfs: module $_im not found for kernel $_ik" >&2
		return 1
	}
	case $_f in
	/*) ;;
	*) return 0 ;; # (builtin)
	esac
	for _d in $(modinfo -k "$_ik" -F depends "$_im" | tr ',' ' '); do
		_ird_mod1 "$_ir" "$_ik" "$_d" || return 1
		_ik=$2 _ir=$1 _im=$3 # restore after the recursion (sh has no locals)
	done
	_f=$(modinfo -k "$_ik" -n "$_im")
	case $_f in
	*.xz) xz -dc "$_f" >"$_ir/modules/$_im.ko" ;;
	*.zst) zstd -qdc "$_f" >"$_ir/modules/$_im.ko" ;;
	*.gz) gzip -dc "$_f" >"$_ir/modules/$_im.ko" ;;
	*) cp "$_f" "$_ir/modules/$_im.ko" ;;
	esac || return 1
	echo "$_im" >>"$_ir/modules/order"
}

ird_module() {
	_mr=$1 _mk=$2
	shift 2
	command -v modinfo >/dev/null || { echo "initramfs: modinfo missing (kmod)" >&2; return 1; }
	[ -d "/lib/modules/$_mk" ] || { echo "initramfs: /lib/modules/$_mk missing" >&2; return 1; }
	for _mm in "$@"; do
		_ird_mod1 "$_mr" "$_mk" "$_mm" || return 1
	done
}

ird_kmod_tree() {
	_td=$1 _tm=$2
	shift 2
	_tk=$(basename "$_tm") _tb=${_tm%/lib/modules/*}
	mkdir -p "$_td" || return 1
	# Debian's 7.x module packages ship none of these: kmod does without,
	# as on a host running those kernels.
	for _tf in modules.order modules.builtin modules.builtin.modinfo; do
		[ ! -f "$_tm/$_tf" ] || cp "$_tm/$_tf" "$_td/" || return 1
	done
	for _tn in "$@"; do
		_tf=$(modinfo ${_tb:+-b "$_tb"} -k "$_tk" -n "$_tn") || {
			echo "initramfs: module $_tn not found for $_tk" >&2
			return 1
		}
		mkdir -p "$_td/$(dirname "${_tf#$_tm/}")" || return 1
		cp "$_tf" "$_td/${_tf#$_tm/}" || return 1
	done
}

ird_pack() {
	command -v cpio >/dev/null || { echo "initramfs: cpio missing" >&2; return 1; }
	(cd "$1" && find . | cpio -o -H newc --quiet | gzip -1) >"$2"
}
