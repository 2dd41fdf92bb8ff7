// SPDX-License-Identifier: GPL-2.0
/*
 * tapx_tun.ko - tun.ko's exports for vhost-net, answered by tapx.
 *
 * vhost_net.ko links against tun_get_socket, tun_get_tx_ring and
 * tun_ptr_free (and, from 7.3, tun_wake_queue) by name and, with CONFIG_MODVERSIONS, by CRC. genksyms
 * computes those CRCs from every struct reachable from the prototypes
 * (struct file, struct socket, struct ptr_ring, ...) as this translation
 * unit sees them: a struct that is only declared here, not defined, is
 * hashed differently. So the includes below are drivers/net/tun.c's own,
 * in its order (6.9 added net/rps.h there), and nothing else comes before
 * the exports' prototypes; the build checks the result against the
 * kernel's Module.symvers (symvers-check.sh).
 *
 * A module of its own, not part of tapx.ko: a module exporting tun_* and
 * stock tun.ko exclude each other ("exports duplicate symbol"), and tapx
 * is meant to run beside tun.ko too (kmod/README.md, vhost-net).
 */
#include <linux/module.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/sched/signal.h>
#include <linux/major.h>
#include <linux/slab.h>
#include <linux/poll.h>
#include <linux/fcntl.h>
#include <linux/init.h>
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/miscdevice.h>
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>
#include <linux/compat.h>
#include <linux/if.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/if_tun.h>
#include <linux/if_vlan.h>
#include <linux/crc32.h>
#include <linux/math.h>
#include <linux/nsproxy.h>
#include <linux/virtio_net.h>
#include <linux/rcupdate.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/rtnetlink.h>
#include <net/sock.h>
#include <net/xdp.h>
#include <net/ip_tunnels.h>
#include <linux/seq_file.h>
#include <linux/uio.h>
#include <linux/skb_array.h>
#include <linux/bpf.h>
#include <linux/bpf_trace.h>
#include <linux/mutex.h>
#include <linux/ieee802154.h>
#include <linux/if_ltalk.h>
#include <uapi/linux/if_fddi.h>
#include <uapi/linux/if_hippi.h>
#include <uapi/linux/if_fc.h>
#include <net/ax25.h>
#include <net/rose.h>
#include <net/6lowpan.h>
#if __has_include(<net/rps.h>)
#include <net/rps.h>
#endif
#include <linux/uaccess.h>
#include <linux/proc_fs.h>

#include "tapx_exports.h"

/* ERR_PTR(-EINVAL) for files that are not tapx's, as tun answers. */
struct socket *tun_get_socket(struct file *file)
{
	return tapx_vhost_socket(file);
}
EXPORT_SYMBOL_GPL(tun_get_socket);

struct ptr_ring *tun_get_tx_ring(struct file *file)
{
	return tapx_vhost_ring(file);
}
EXPORT_SYMBOL_GPL(tun_get_tx_ring);

/* vhost's destructor for ring entries it gives back. */
void tun_ptr_free(void *ptr)
{
	tapx_ptr_free(ptr);
}
EXPORT_SYMBOL_GPL(tun_ptr_free);

#ifdef IFF_BACKPRESSURE
/*
 * 7.3: vhost-net reports how many entries it took from the ring, under the
 * ring's consumer lock, so that a queue stopped by backpressure restarts.
 */
void tun_wake_queue(struct file *file, int consumed)
{
	tapx_vhost_consumed(file, consumed);
}
EXPORT_SYMBOL_GPL(tun_wake_queue);
#endif

MODULE_DESCRIPTION("tun's vhost-net exports, served by tapx");
MODULE_AUTHOR("tap-accel project");
MODULE_LICENSE("GPL");
