// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * pinwatch DIR - one line per pin made or removed in DIR (the plane's
 * links/), as soon as the bpffs says so (inotify):
 *
 *   [2026-12-03T10:20:40.303133] +COOKIE:IFINDEX
 *   [2026-12-03T10:20:41.100007] -COOKIE:IFINDEX
 *
 * in `ip -ts monitor`'s time format, so that the agent suite can set the
 * moment a tap was announced beside the moment its link was pinned. The
 * first line, "watching DIR", says the watch is on. Runs until killed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static void stamp(char *buf, size_t size)
{
	struct timeval tv;
	struct tm tm;
	size_t n;

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	n = strftime(buf, size, "[%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, size - n, ".%06ld]", (long)tv.tv_usec);
}

int main(int argc, char **argv)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	char when[64];
	ssize_t n;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: pinwatch DIR\n");
		return 2;
	}
	fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0 || inotify_add_watch(fd, argv[1], IN_CREATE | IN_DELETE | IN_MOVED_TO) < 0) {
		perror(argv[1]);
		return 1;
	}
	printf("watching %s\n", argv[1]);
	fflush(stdout);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		stamp(when, sizeof(when));
		for (char *p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			if (ev->len)
				printf("%s %c%s\n", when, ev->mask & IN_DELETE ? '-' : '+', ev->name);
		}
		fflush(stdout);
	}
	return 0;
}
