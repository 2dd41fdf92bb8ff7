// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-vhost - plays a virtio-net guest on /dev/vhost-net, with a tap fd as
 * its backend, so that the kernel's vhost-net moves frames through the tap
 * driver exactly as it does for a QEMU guest with vhost=on, and as QEMU sets
 * it up (12-byte vnet header, sndbuf unlimited). No nested guest: our own
 * memory is the one region of the mem table, the split virtqueues RX (0)
 * and TX (1) are laid out in it, kicks and calls are eventfds.
 *
 *   tapx-vhost run [--node PATH] [--name IF] [--label L] [--count N]
 *                  [--sizes 60,1500,...] [--gso-size N] [--tests LIST]
 *                  [--pins DIR] [--maps DIR] [--sendmsg-probe FUNC]
 *                  [--gso-tx-drops]
 *
 * --node: the char device the tap is opened on (/dev/net/tun); --name: the
 * base interface name (vh0; subtests add suffixes); --label: printed after
 * PASS/FAIL ("tun", "tapx"); --count: frames per case (20); --sizes: frame
 * sizes of the size cases, 65535 carries a TCPv4 GSO header (gso_size
 * --gso-size, 1448); --tests: a comma list of sizes, verdicts, ringfull,
 * backpressure (IFF_BACKPRESSURE, where the kernel has it),
 * delete, detach, rxgso, mq, tnl (all by default; "basic" is 60 and 1500 B both ways,
 * for a quick reuse check; the setup of the main device always runs);
 * --pins, --maps: where the xdp_basic programs and their maps are pinned
 * (/sys/fs/bpf/xb, /sys/fs/bpf/xbm);
 * --sendmsg-probe FUNC: the driver's socket sendmsg, kprobed to check
 * which TX path each size took (batched, or one call per frame);
 * --gso-tx-drops: the driver drops a GSO frame that the program sends back
 * (XDP_TX) or redirects, and counts it in ethtool's xdp_gso_drops (tapx,
 * kmod/README.md), where tun.ko delivers it through generic XDP.
 *
 *   tapx-vhost bench [--node PATH] [--name IF] [--reps N] [--frames N]
 *                    [--pins DIR] [--maps DIR] [--gso-size N] [--cells LIST]
 *                    [--sizes LIST] [--cpu N] [--check]
 *
 * The bench: ns per frame through vhost-net at 64, 1500, 9000 B and 64 KiB
 * GSO super-frames (--frames per run at 64 and 1500 B, a quarter at 9000,
 * an eighth at 64 KiB; --sizes a comma list of them, 65535 for 64 KiB), --reps interleaved runs,
 * the minimum; one line "CELL SIZE PATH NS" each. Cells (--cells, a comma
 * list, all by default): guest TX with xdp_drop, xdp_pass, no program and
 * the guard (tx-drop tx-pass tx-noprog tx-guard); guest RX of frames the
 * stack sends into the tap and of frames redirected into it from another
 * tap (rx-stack rx-redirect); guest to guest through a Linux bridge and
 * through tap-accel's forwarding (g2g-bridge g2g-fwd); guest TX with no
 * program and guest RX from the stack (16 UDP flows) on a tap with two
 * queue pairs, each with its vhost-net (tx2q-noprog rx2q-stack). The guard
 * and the forwarding need tap-accel in PATH. Every frame is counted where it
 * arrives (the RX ring, exact length); a missing one fails the cell. Frames
 * there not from the guest's MAC are the host's own (a bridge's IGMP
 * reports): set aside, not counted. The guests and their vhost workers
 * run on CPU --cpu (0; -1: anywhere).
 * --check (the suites' smoke run): each cell's frames must also be exactly
 * what the counters of the taps they crossed grew by (the host's own
 * frames added to a tap's tx_packets).
 *
 * A backend the node's driver does not serve (VHOST_NET_SET_BACKEND says
 * ENOTSOCK: vhost-net found no tun_get_socket() file) fails loudly, once,
 * and the tool exits 2: the remaining cases cannot run without it.
 */
#include "vhost.h"

const char *node = "/dev/net/tun";
const char *base_name = "vh0";
const char *label = "";
int gso_tx_drops;

const char *sizes_opt = "60,1500,3380,3381,3636,3637,9000,65535";
const char *tests_opt = "all";
const char *pins = "/sys/fs/bpf/xb";
const char *maps = "/sys/fs/bpf/xbm";
const char *sendmsg_probe = "";
int count = 20;
int gso_size = 1448;
char prefix[64];
/* The bench's CPU (--cpu): its vhost workers are put there too; -1 none. */
int bench_cpu = -1;

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_run(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "bench"))
		return cmd_bench(argc, argv);
	fprintf(stderr,
		"usage: tapx-vhost run [--node PATH] [--name IF] [--label L] [--count N]\n"
		"                      [--sizes LIST] [--gso-size N] [--tests LIST]\n"
		"                      [--pins DIR] [--maps DIR] [--sendmsg-probe FUNC]\n"
		"                      [--gso-tx-drops]\n"
		"  tests: sizes verdicts ringfull delete detach rxgso mq (all), basic\n"
		"       tapx-vhost bench [--node PATH] [--name IF] [--reps N] [--frames N]\n"
		"                        [--pins DIR] [--maps DIR] [--gso-size N] [--cells LIST]\n"
		"                        [--sizes LIST] [--cpu N] [--check]\n");
	return 1;
}
