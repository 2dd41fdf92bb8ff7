// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-stress's parent: setup, the workers' end, the accounting on
 * the stable devices, cleanup.
 */
#include "stress.h"

/* basic_ports[0] = dev: where xdp_redirect sends. */
static int set_port(const char *dev)
{
	unsigned int key = 0, ifindex = if_nametoindex(dev);
	union bpf_attr a;
	int fd = bpf_obj_get(portmap), r;

	if (fd < 0 || !ifindex)
		return errno;
	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uint64_t)(unsigned long)&key;
	a.value = (uint64_t)(unsigned long)&ifindex;
	r = syscall(__NR_bpf, BPF_MAP_UPDATE_ELEM, &a, sizeof(a)) < 0 ? errno :
									  0;
	close(fd);
	return r;
}

int setup(void)
{
	char path[256];
	int i, err;

	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", progdir, prog_name[i]);
		prog_fd[i] = bpf_obj_get(path);
		if (prog_fd[i] < 0) {
			fprintf(stderr, "stress: %s: %s\n", path,
				strerror(errno));
			return -1;
		}
	}
	scratch_fd = node_open(1);
	if (scratch_fd < 0 || ioctl(scratch_fd, TUNGETFEATURES, &features)) {
		perror("stress: TUNGETFEATURES");
		return -1;
	}
	for (i = 0; i < NSTABLE; i++) {
		st[i].fd = node_open(1);
		err = st[i].fd < 0 ? errno : set_iff(st[i].fd, st[i].name,
						     st[i].flags);
		if (!err)
			err = set_mtu(st[i].name, 65521);
		if (!err)
			err = link_up(st[i].name, 1);
		if (!err && i == 1)
			err = set_port(st[i].name);
		/* xdp_redirect on xs0 (to xs1), the others at random. */
		if (!err)
			err = xdp_set(st[i].name, prog_fd[i ? rn(4) : 3], 0);
		if (err) {
			fprintf(stderr, "stress: setting up %s: %s\n",
				st[i].name, strerror(err));
			return -1;
		}
	}
	return 0;
}

/*
 * Waits for the workers; one still running a minute after the end is
 * stuck (in the kernel or here): its stack is printed and it is killed.
 */
void reap(pid_t *pid, double deadline)
{
	int w, status, left = nworkers, rounds = 0;
	pid_t p;

	while (left) {
		p = waitpid(-1, &status, WNOHANG);
		if (p > 0) {
			for (w = 0; w < nworkers; w++)
				if (pid[w] == p)
					break;
			check(WIFEXITED(status) && !WEXITSTATUS(status),
			      "worker %d exited cleanly (status 0x%x)", w, status);
			left--;
			continue;
		}
		if (now() < deadline) {
			usleep(100000);
			continue;
		}
		if (rounds++ == 3) {
			check(0, "%d workers cannot be killed: giving up", left);
			return;
		}
		for (w = 0; w < nworkers; w++) {
			if (kill(pid[w], 0))
				continue;
			check(0, "worker %d still running 60 s after the end", w);
			kernel_stack_print("stress: worker pid", pid[w]);
			kill(pid[w], SIGKILL);
		}
		deadline += 30;
	}
}

void print_table(struct wstats *t)
{
	int i;

	printf("stress: %-16s %10s %10s %10s\n", "op", "ok", "expected",
	       "unexpected");
	for (i = 0; i < NR_OPS; i++)
		printf("stress: %-16s %10llu %10llu %10llu\n", op_name[i],
		       (unsigned long long)t->ok[i],
		       (unsigned long long)t->exp[i],
		       (unsigned long long)t->unexp[i]);
}

/* Reads what is left in a stable device's ring; returns the count. */
static uint64_t drain(int fd)
{
	uint64_t n = 0;
	ssize_t r;

	/* Every answer but EAGAIN took a frame (see op_read_stable). */
	while ((r = read(fd, rbuf, MAXT)) >= 0 || errno != EAGAIN)
		n++;
	return n;
}

void account(struct wstats *t)
{
	const char *v[] = { "xdp_pass",	    "xdp_drop",	    "xdp_tx",
			    "xdp_tx_errors", "xdp_redirect", "xdp_redirect_errors",
			    "xdp_aborted",   "xdp_gso_drops", "xdp_frags_drops" };
	uint64_t redirected = 0, xmit = 0, xmit_err = 0;
	struct estats e[NSTABLE];
	int i, k;

	for (i = 0; i < NSTABLE; i++) {
		struct sacct *a = &t->s[i];
		const char *n = st[i].name;
		uint64_t sum = 0, left, rxp, txp;

		left = drain(st[i].fd);
		if (ethtool_stats(n, &e[i])) {
			check(0, "%s: ethtool -S: %s", n, strerror(errno));
			continue;
		}
		rxp = est(&e[i], n, "rx_packets");
		txp = est(&e[i], n, "tx_packets");
		for (k = 0; k < 9; k++)
			sum += est(&e[i], n, v[k]);
		redirected += est(&e[i], n, "xdp_redirect");
		printf("stress: %s: writes ok %llu einval %llu efault(header) %llu "
		       "efault(frame) %llu efault(vfs) %llu gap headers zeroed %llu; "
		       "reads ok %llu consumed %llu drained %llu\n",
		       n, (unsigned long long)a->w_ok,
		       (unsigned long long)a->w_einval,
		       (unsigned long long)a->w_efault_meta,
		       (unsigned long long)a->w_efault_fill,
		       (unsigned long long)a->w_vfs,
		       (unsigned long long)a->w_gap,
		       (unsigned long long)a->r_ok,
		       (unsigned long long)a->r_consumed,
		       (unsigned long long)left);
		printf("stress: %s: of these by TAPXSUBMIT: ok %llu einval %llu, "
		       "batches stopped by a fault %llu; by TAPXRECV: %llu frames\n",
		       n, (unsigned long long)a->b_ok,
		       (unsigned long long)a->b_einval,
		       (unsigned long long)a->b_stop,
		       (unsigned long long)a->b_recv);
		printf("stress: %s:", n);
		for (k = 0; k < e[i].n; k++)
			printf(" %.*s=%llu", ETH_GSTRING_LEN, e[i].names[k],
			       (unsigned long long)e[i].v[k]);
		printf("\n");
		check(rxp == a->w_ok, "%s: rx_packets %llu == accepted writes %llu",
		      n, (unsigned long long)rxp, (unsigned long long)a->w_ok);
		check(est(&e[i], n, "rx_errors") == a->w_einval,
		      "%s: rx_errors %llu == malformed writes (EINVAL) %llu", n,
		      (unsigned long long)est(&e[i], n, "rx_errors"),
		      (unsigned long long)a->w_einval);
		check(est(&e[i], n, "rx_dropped") ==
			      a->w_efault_meta + a->w_efault_fill,
		      "%s: rx_dropped %llu == writes that faulted %llu (header "
		      "%llu + frame %llu)",
		      n, (unsigned long long)est(&e[i], n, "rx_dropped"),
		      (unsigned long long)(a->w_efault_meta + a->w_efault_fill),
		      (unsigned long long)a->w_efault_meta,
		      (unsigned long long)a->w_efault_fill);
		if (st[i].detach)
			/*
			 * tapx counts nothing for a frame that met no program
			 * (tapx_xdp_run's !prog branch), so on a device that
			 * was without one at times only >= holds.
			 */
			check(rxp >= sum,
			      "%s: rx_packets %llu >= sum of verdict counters %llu "
			      "(%llu frames met no program: no counter for them)",
			      n, (unsigned long long)rxp,
			      (unsigned long long)sum,
			      (unsigned long long)(rxp - sum));
		else
			check(rxp == sum,
			      "%s: rx_packets %llu == pass+drop+tx+tx_errors+redirect+"
			      "redirect_errors+aborted+gso_drops+frags_drops %llu",
			      n, (unsigned long long)rxp,
			      (unsigned long long)sum);
		check(a->r_ok <= txp, "%s: frames read %llu <= tx_packets %llu", n,
		      (unsigned long long)a->r_ok, (unsigned long long)txp);
		check(txp == a->r_consumed + left,
		      "%s: tx_packets %llu == frames taken by reads %llu + left "
		      "in the ring %llu",
		      n, (unsigned long long)txp,
		      (unsigned long long)a->r_consumed,
		      (unsigned long long)left);
		if (i == 1) {
			xmit = est(&e[i], n, "xdp_xmit");
			xmit_err = est(&e[i], n, "xdp_xmit_errors");
		}
	}
	check(redirected == xmit + xmit_err,
	      "xdp_redirect on xs0..xs2 %llu == xs1 xdp_xmit %llu + "
	      "xdp_xmit_errors %llu",
	      (unsigned long long)redirected, (unsigned long long)xmit,
	      (unsigned long long)xmit_err);
}

void cleanup(void)
{
	struct if_nameindex *ni, *p;
	int i;

	for (i = 0; i < NSTABLE; i++) {
		ioctl(st[i].fd, TUNSETPERSIST, 0);
		close(st[i].fd);
	}
	close(scratch_fd);
	/* Persistent churn devices and tapx%d ones. */
	ni = if_nameindex();
	for (p = ni; p && p->if_index; p++)
		if (!strncmp(p->if_name, "xc", 2) ||
		    !strncmp(p->if_name, "xq", 2) ||
		    !strncmp(p->if_name, "tapx", 4))
			link_del(p->if_name);
	if (ni)
		if_freenameindex(ni);
	ni = if_nameindex();
	for (p = ni; p && p->if_index; p++)
		if (!strncmp(p->if_name, "xc", 2) ||
		    !strncmp(p->if_name, "xq", 2) ||
		    !strncmp(p->if_name, "xs", 2) ||
		    !strncmp(p->if_name, "tapx", 4))
			check(0, "cleanup: %s still exists", p->if_name);
	if (ni)
		if_freenameindex(ni);
}
