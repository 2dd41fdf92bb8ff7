/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What tapx.ko exports for tapx_tun.ko (tapx_tun.c), which turns it into
 * tun's vhost-net interface: a file's socket and ring (tapx_chr.c), and the
 * ring's destructor (tapx_ring.c). Declarations only, and no struct
 * definitions: tapx_tun.c's CRCs depend on exactly which headers it sees.
 */
#ifndef TAPX_EXPORTS_H
#define TAPX_EXPORTS_H

struct file;
struct socket;
struct ptr_ring;

/* ERR_PTR(-EINVAL) unless @file is an open tapx character device. */
struct socket *tapx_vhost_socket(struct file *file);
struct ptr_ring *tapx_vhost_ring(struct file *file);
/* vhost-net took @consumed entries from @file's ring (its consumer lock held). */
void tapx_vhost_consumed(struct file *file, int consumed);
/* Frees a reader ring entry: an skb or a tagged xdp_frame. */
void tapx_ptr_free(void *ptr);

#endif /* TAPX_EXPORTS_H */
