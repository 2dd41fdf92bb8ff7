#!/bin/sh
# The Debian kernels tapx is built for and tested on, by series, resolved to
# what is installed here (make deps installs them):
#   6.1   Debian 12's kernel        linux-image-amd64, linux-headers-amd64
#   6.12  Debian 12's security one  linux-image-6.12-amd64, linux-headers-6.12-amd64
#   mk/kernels.sh SERIES      print the env of the newest installed kernel of
#                             SERIES, one VAR=value a line, for eval:
#       KVER    its release (uname -r)   KERNEL  its image
#       MODBASE modinfo -b base ("")     MODDIR  /lib/modules/KVER
#       KDIR    its headers, to build tapx against
#     exit 1 with the package to install when the image, modules or
#     headers are missing
#   mk/kernels.sh --series    the series supported, one a line
set -eu

SERIES="6.1 6.12"

die() { echo "kernels: $*" >&2; exit 1; }

case "${1:-}" in
--series) echo "$SERIES" | tr ' ' '\n'; exit 0 ;;
6.1) pat='6.1.0-*-amd64' pkg='linux-image-amd64 linux-headers-amd64' ;;
6.12) pat='6.12.*-amd64' pkg='linux-image-6.12-amd64 linux-headers-6.12-amd64' ;;
*) die "usage: $0 SERIES|--series (SERIES: $SERIES)" ;;
esac

# Newest first; the generic flavour only (not -cloud-, -rt-).
kver=""
for img in $(ls -d /boot/vmlinuz-$pat 2>/dev/null | grep -v -e '-cloud-' -e '-rt-' | sort -V -r); do
	k=${img#/boot/vmlinuz-}
	if [ -d "/lib/modules/$k/kernel" ] && [ -f "/usr/src/linux-headers-$k/Makefile" ]; then
		kver=$k
		break
	fi
done
[ -n "$kver" ] || die "no Debian $1 kernel with its modules and headers installed (make deps, or apt-get install $pkg)"

printf 'KVER=%s\nKERNEL=%s\nMODBASE=\nMODDIR=%s\nKDIR=%s\n' \
	"$kver" "/boot/vmlinuz-$kver" "/lib/modules/$kver" "/usr/src/linux-headers-$kver"
