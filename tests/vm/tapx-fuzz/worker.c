// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-fuzz's workers: the state of each process and thread, the
 * threads' loop, a process's pauses for the parent's epochs.
 */
#include "fuzz.h"

/* Shared by the parent and every worker. */
struct gshared *g;

/* ---- per-process state ---- */

int proc_id;
int unpriv;
int slots[NSLOTS];
int nprog;
int progs[8];
int fd_fuzz_frags = -1;
int fd_fuzz_linear = -1;
int no_generic_frags;
static const char *const prog_names[] = {
	"xf/xdp_fuzz", "xf/xdp_fuzz_linear", "xb/xdp_pass", "xb/xdp_drop",
	"xb/xdp_tx",   "xb/xdp_redirect",
};
int map_ports[2] = { -1, -1 };
int map_cpus[2] = { -1, -1 };
int map_ctl = -1;
int map_ifindex = -1;
unsigned char *flaky; /* one page mprotect()ed on and off */
unsigned char *ro_page; /* read-only, for writes into it */
void *unmapped; /* an address with nothing mapped */

/* ---- workers ---- */

/*
 * A pause's closes, each watched like a call (a last close deletes its
 * device: seconds under rtnl on the debug kernel) and counted, so that
 * the parent sees the pause progress. Also called by a process's main
 * thread at its end, which is no worker (T is NULL there).
 */
static void close_all(void)
{
	struct wshared *sh = T ? T->sh : NULL;

	for (int i = 0; i < NSLOTS; i++) {
		int fd = __atomic_exchange_n(&slots[i], -1, __ATOMIC_SEQ_CST);

		if (fd < 0)
			continue;
		if (sh) {
			sh->cur_kind = K_CLOSE;
			__atomic_store_n(&sh->busy_since, (int64_t)now_ns(),
					 __ATOMIC_SEQ_CST);
		}
		close(fd);
		if (sh)
			__atomic_store_n(&sh->busy_since, 0, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&g->pause_closes, 1, __ATOMIC_SEQ_CST);
	}
}

static void thread_close(void)
{
	uring_close();
	if (T->pkt >= 0)
		close(T->pkt);
	T->pkt = -1;
}

struct targ {
	int w;
	uint64_t seed;
	int64_t end;
};

static pthread_barrier_t pbar;

static void *thread_main(void *arg)
{
	struct targ *ta = arg;
	struct thr t;
	struct sigevent sev;
	int epoch = 0;

	memset(&t, 0, sizeof(t));
	T = &t;
	t.w = ta->w;
	t.sh = &g->w[t.w];
	t.sh->tid = syscall(SYS_gettid);
	t.rng = ta->seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(t.w + 1));
	if (!t.rng)
		t.rng = 1;
	t.nl = t.pkt = t.ring = -1;
	t.arena = mmap(NULL, ARENA + PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t.arena == MAP_FAILED)
		return NULL;
	mprotect(t.arena + ARENA, PG, PROT_NONE);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR1;
	sev._sigev_un._tid = t.sh->tid;
	t.have_timer = timer_create(CLOCK_MONOTONIC, &sev, &t.timer) == 0;

	for (;;) {
		int e = __atomic_load_n(&g->epoch, __ATOMIC_SEQ_CST);

		if (g->stop || now_ns() >= ta->end ||
		    (max_calls && t.sh->calls >= max_calls))
			break;
		if (e & 1) {
			/* Pause: close what this thread and process hold. */
			if (epoch != e) {
				epoch = e;
				thread_close();
				t.sh->paused = e;
				pthread_barrier_wait(&pbar);
				if (t.w % nthreads == 0) {
					close_all();
					g->closed[proc_id] = e;
				}
			}
			usleep(2000);
			continue;
		}
		one_call();
	}
	thread_close();
	t.sh->paused = -1;
	return NULL;
}

/* A fault in the fuzzer itself: say where, in the log the parent prints. */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
	char buf[256];
	int n;

	(void)uc;
	n = snprintf(buf, sizeof(buf),
		     "fuzz: worker %d: signal %d at %p during %s: %s\n",
		     T ? T->w : -1, sig, si->si_addr,
		     T ? kname[T->sh->cur_kind] : "?", T ? T->desc : "?");
	if (write(2, buf, n) < 0)
		_exit(3);
	_exit(3);
}

void proc_main(int p, uint64_t seed, int64_t end)
{
	struct sigaction fa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO };
	pthread_t th[MAXT];
	struct targ ta[MAXT];
	struct sigaction sa = { .sa_handler = on_sig };
	char path[256];
	int i, n = only >= 0 ? 1 : nthreads;

	proc_id = p;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sigaction(SIGUSR1, &sa, NULL); /* no SA_RESTART: blocking calls end */
	sigaction(SIGSEGV, &fa, NULL);
	sigaction(SIGBUS, &fa, NULL);
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < NSLOTS; i++)
		slots[i] = -1;
	for (i = 0; i < (int)(sizeof(prog_names) / sizeof(prog_names[0])); i++) {
		const char *n2 = strchr(prog_names[i], '/') + 1;
		const char *dir = prog_names[i][1] == 'f' ? progdir : basicdir;
		int fd;

		snprintf(path, sizeof(path), "%s/%s", dir, n2);
		fd = bpf_obj_get(path);
		if (fd < 0)
			continue;
		progs[nprog++] = fd;
		if (i == 0)
			fd_fuzz_frags = fd;
		else if (i == 1)
			fd_fuzz_linear = fd;
	}
	snprintf(path, sizeof(path), "%s/fuzz_ports", mapdir);
	map_ports[0] = bpf_obj_get(path);
	snprintf(path, sizeof(path), "%s/fuzz_ports_linear", mapdir);
	map_ports[1] = bpf_obj_get(path);
	snprintf(path, sizeof(path), "%s/fuzz_cpus", mapdir);
	map_cpus[0] = bpf_obj_get(path);
	snprintf(path, sizeof(path), "%s/fuzz_cpus_linear", mapdir);
	map_cpus[1] = bpf_obj_get(path);
	snprintf(path, sizeof(path), "%s/fuzz_ctl", mapdir);
	map_ctl = bpf_obj_get(path);
	snprintf(path, sizeof(path), "%s/fuzz_ifindex", mapdir);
	map_ifindex = bpf_obj_get(path);

	/*
	 * The hostile pages sit in a reserved PROT_NONE area, 60 KiB of it on
	 * either side: a kernel copy that runs past the flaky or read-only
	 * page faults there instead of writing into whatever mapping is next
	 * (the shared state, a stack), and "unmapped" is never reused by a
	 * later mmap.
	 */
	{
		unsigned char *res = mmap(NULL, 192 * 1024, PROT_NONE,
					  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
					  -1, 0);

		flaky = res + 64 * 1024;
		ro_page = res + 128 * 1024;
		unmapped = res + 160 * 1024;
		mprotect(flaky, PG, PROT_READ | PROT_WRITE);
		mprotect(ro_page, PG, PROT_READ);
	}

	if (p == 1 && only < 0) {
		/*
		 * The second process lives in a network namespace of its own:
		 * its devices are other devices of the same names, the netns
		 * calls move devices between the two, and the namespace goes
		 * away (with what is left in it) when the process ends.
		 */
		if (unshare(CLONE_NEWNET))
			fprintf(stderr, "fuzz: unshare(CLONE_NEWNET): %s\n",
				strerror(errno));
		else
			g->netns_pid[1] = getpid();
	}
	if (unpriv && p == nprocs - 1 && only < 0) {
		/* The last process: another user, no capabilities. */
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			fprintf(stderr, "fuzz: cannot drop privileges: %s\n",
				strerror(errno));
	}
	pthread_barrier_init(&pbar, NULL, n);
	for (i = 0; i < n; i++) {
		ta[i].w = only >= 0 ? only : p * nthreads + i;
		ta[i].seed = seed;
		ta[i].end = end;
		pthread_create(&th[i], NULL, thread_main, &ta[i]);
	}
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	close_all();
	_exit(0);
}
