// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* files.c - the results folder of a benchmark run and its gnuplot charts. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <libgen.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "files.h"
#include "stop.h"

static int mkdir_p(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

static void default_dir(char *buf, size_t len)
{
	char exe[PATH_MAX], stamp[32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *build = ".";
	time_t t = time(NULL);

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", gmtime(&t));
	if (n > 0) {
		exe[n] = '\0';
		char *user = dirname(exe); /* .../build/user */

		if (!strcmp(basename(user), "user"))
			build = dirname(user);
	}
	if (strcmp(build, "."))
		snprintf(buf, len, "%s/bench/%s", build, stamp);
	else
		snprintf(buf, len, "bench-results/%s", stamp);
}

int bench_results_dir(const char *given, char *buf, size_t len)
{
	if (given)
		snprintf(buf, len, "%s", given);
	else
		default_dir(buf, len);
	if (mkdir_p(buf)) {
		fprintf(stderr, "tap-accel-bench: cannot create %s: %s\n", buf, strerror(errno));
		return -1;
	}
	return 0;
}

FILE *bench_open_in(const char *dir, const char *name)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "tap-accel-bench: %s: %s\n", path, strerror(errno));
	return f;
}

/* pngcairo where gnuplot has it, libgd's png otherwise. */
void bench_chart_outputs(FILE *out, const char *base, const char *plot)
{
	fprintf(out,
		"set terminal svg size 1200,640 dynamic background rgb 'white' "
		"font 'sans,11'\n"
		"set termoption noenhanced\n"
		"set output '%s.svg'\n"
		"%s\n"
		"if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) "
		"{ set terminal pngcairo size 1200,640 background rgb 'white' "
		"font 'sans,10' } else { set terminal png size 1200,640 }\n"
		"set termoption noenhanced\n"
		"set output '%s.png'\n"
		"%s\n",
		base, plot, base, plot);
}

bool bench_chart_open(const char *dir, const char *base, FILE **dat, FILE **gp)
{
	char name[64];

	snprintf(name, sizeof(name), "%s.dat", base);
	*dat = bench_open_in(dir, name);
	snprintf(name, sizeof(name), "%s.gp", base);
	*gp = *dat ? bench_open_in(dir, name) : NULL;
	if (*gp)
		return true;
	if (*dat)
		fclose(*dat);
	return false;
}

/* gnuplot SCRIPT run in DIR: its exit status, 127 without gnuplot, -1. */
static int run_gnuplot(const char *dir, const char *script)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (chdir(dir) == 0)
			execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (stop_wait_child(pid, &status) || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

bool bench_plot(const char *dir, const char *base)
{
	char script[64];
	int rc;

	snprintf(script, sizeof(script), "%s.gp", base);
	rc = run_gnuplot(dir, script);
	if (rc == 127)
		fprintf(stderr, "tap-accel-bench: no gnuplot here, no %s.svg or %s.png; %s.gp and "
			"%s.dat are in %s\n", base, base, base, base, dir);
	else if (rc)
		fprintf(stderr, "tap-accel-bench: gnuplot failed; %s.gp and %s.dat are in %s\n", base,
			base, dir);
	return rc == 0;
}
