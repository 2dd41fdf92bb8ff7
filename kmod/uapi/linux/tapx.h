/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * tapx batch ABI: many frames in or out of a tapx file in one system call.
 * Userspace includes it as <linux/tapx.h> (cc -I kmod/uapi); the driver
 * includes it too.
 *
 * TAPXSUBMIT writes batch.count frames, TAPXRECV reads up to batch.count.
 * Each frame is described by one struct tapx_desc in an array at
 * batch.descs. A frame's bytes are laid out exactly as for write()/read()
 * on the same file: the PI header (without IFF_NO_PI), then the vnet
 * header (with IFF_VNET_HDR), then the Ethernet frame.
 *
 * Both ioctls return 0 when every descriptor was consumed, else the -errno
 * that stopped the batch at descs[batch.done]. batch.done is written back
 * in both cases: the descriptors before it were consumed exactly once, the
 * ones from it on were not touched, so a retry from descs[done] neither
 * loses nor duplicates a frame.
 *
 * TAPXSUBMIT: desc.addr/desc.len name the bytes to write. Every consumed
 * frame meets the XDP program on its own; redirects are flushed once per
 * batch. A malformed frame (runt, oversize, bad vnet header) is consumed,
 * counted in rx_errors, and reported with desc.status = -EINVAL; the batch
 * goes on. A fault reading a descriptor or a frame (-EFAULT) or a failed
 * allocation (-ENOMEM) stops the batch there.
 *
 * TAPXRECV: desc.addr/desc.len name a buffer; on return desc.len holds the
 * bytes stored, and desc.status is 0, or -EMSGSIZE when the frame was
 * truncated to fit (the frame is consumed either way, as with read()).
 * Without O_NONBLOCK it waits for the first frame only, then takes what is
 * queued up to batch.count; with O_NONBLOCK an empty queue is -EAGAIN.
 *
 * desc.status and desc.len are written back for descriptors [0, done).
 */
#ifndef _UAPI_LINUX_TAPX_H
#define _UAPI_LINUX_TAPX_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Largest batch.count either ioctl accepts; larger is -EINVAL. */
#define TAPX_BATCH_MAX 256

struct tapx_desc {
	__u64 addr; /* user address of the frame (submit) or buffer (recv) */
	__u32 len; /* in: bytes at addr; recv out: bytes stored */
	__s32 status; /* out: 0 or -errno for this frame */
};

struct tapx_batch {
	__u64 descs; /* user address of count struct tapx_desc */
	__u32 count; /* in: 1..TAPX_BATCH_MAX */
	__u32 flags; /* in: must be 0 */
	__u32 done; /* out: descriptors consumed */
	__u32 reserved; /* must be 0 */
};

/*
 * tapx's own ioctl magic, free in the kernel's ioctl-number.rst (6.1):
 * not tun's 'T', whose numbers are tun's to assign.
 */
#define TAPX_IOC_MAGIC 0xD7
#define TAPXSUBMIT _IOWR(TAPX_IOC_MAGIC, 0x00, struct tapx_batch)
#define TAPXRECV _IOWR(TAPX_IOC_MAGIC, 0x01, struct tapx_batch)

/*
 * The default XDP program of a network namespace: every tap of the
 * namespace runs it on its writes while it has no program of its own,
 * from the moment TUNSETIFF returns. On a file bound to no device (EBUSY
 * otherwise), for the namespace the file was opened in; CAP_NET_ADMIN
 * over it. TAPXSETDEFPROG takes an int: an XDP program's fd (EINVAL for
 * another type or a devmap/cpumap one, EOPNOTSUPP for a device-bound one,
 * ERANGE without xdp.frags), or -1 to clear. TAPXGETDEFPROG stores its id
 * in a __u32, 0 for none.
 */
#define TAPXSETDEFPROG _IOW(TAPX_IOC_MAGIC, 0x10, int)
#define TAPXGETDEFPROG _IOR(TAPX_IOC_MAGIC, 0x11, __u32)

/*
 * The numbers of tapx 0.1, on tun's magic ('T' 240 and 241, above tun's
 * own 200..227): still accepted, to be removed in the release after next.
 */
#define TAPXSUBMIT_T240 _IOWR('T', 240, struct tapx_batch)
#define TAPXRECV_T241 _IOWR('T', 241, struct tapx_batch)

#endif /* _UAPI_LINUX_TAPX_H */
