#!/bin/sh
# symvers-check.sh KDIR MODULE_SYMVERS: fails unless every symbol the
# kernel's tun.ko exports (tun_get_socket, tun_get_tx_ring, tun_ptr_free,
# and from 7.3 tun_wake_queue) has in MODULE_SYMVERS (what built
# tapx_tun.ko) the CRC it has in KDIR/Module.symvers (what built the
# kernel's tun.ko and vhost_net.ko). With another CRC, vhost_net refuses
# to load ("disagrees about version of symbol"); tapx_tun.c says why they
# can differ.
set -eu
kdir=$1
ours=$2

crc() { awk -v s="$1" '$2 == s { print $1; exit }' "$2"; }

if [ ! -f "$kdir/Module.symvers" ]; then
	echo "tapx_tun: $kdir/Module.symvers missing: cannot check the CRCs vhost_net needs" >&2
	exit 1
fi
# tun.ko's exports, as the kernel lists them (module drivers/net/tun).
syms=$(awk '$3 == "drivers/net/tun" { print $2 }' "$kdir/Module.symvers")
[ -n "$syms" ] || syms="tun_get_socket tun_get_tx_ring tun_ptr_free"
bad=0
for s in $syms; do
	want=$(crc $s "$kdir/Module.symvers")
	got=$(crc $s "$ours")
	# A kernel without CONFIG_MODVERSIONS has no CRCs to match (0x0).
	if [ -z "$want" ]; then
		echo "tapx_tun: $s is not in $kdir/Module.symvers (kernel without CONFIG_TUN?)" >&2
		bad=1
	elif [ "$got" != "$want" ]; then
		echo "tapx_tun: CRC of $s is ${got:-missing}, the kernel's is $want: vhost_net would refuse tapx_tun.ko (see tapx_tun.c)" >&2
		bad=1
	fi
done
exit $bad
