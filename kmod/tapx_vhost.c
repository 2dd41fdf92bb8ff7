// SPDX-License-Identifier: GPL-2.0
/*
 * tapx's side of vhost-net: what tapx_tun.ko's tun_* exports answer. A
 * tapx file's reader ring is a ptr_ring of skbs and xdp_frames tagged
 * like tun's (TAPX_PTR_XDP == TUN_XDP_FLAG), so vhost can consume it as
 * it consumes tun's.
 */
#include <linux/err.h>
#include <linux/module.h>

#include "tapx.h"
#include "tapx_vhost.h"

static_assert(TAPX_PTR_XDP == TUN_XDP_FLAG);

struct socket *tapx_vhost_socket(struct file *file)
{
	struct tapx_file *tfile = tapx_file_of(file);

	if (!tfile)
		return ERR_PTR(-EINVAL);
	/* No socket yet: vhost's SET_BACKEND fails cleanly. */
	return ERR_PTR(-EOPNOTSUPP);
}
EXPORT_SYMBOL_GPL(tapx_vhost_socket);

struct ptr_ring *tapx_vhost_ring(struct file *file)
{
	struct tapx_file *tfile = tapx_file_of(file);

	if (!tfile)
		return ERR_PTR(-EINVAL);
	return &tfile->ring;
}
EXPORT_SYMBOL_GPL(tapx_vhost_ring);

EXPORT_SYMBOL_GPL(tapx_ptr_free);
