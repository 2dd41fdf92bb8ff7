// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * diff_test - the differential test of the policy program against the
 * reference model (user/lib/policy/model.c): random policies are installed into
 * a loaded tap_accel_policy, random and mutated frames go through it one
 * BPF_PROG_TEST_RUN each and through the model; the first frame whose
 * verdict differs, or batch whose counters (rule, parse class, guard
 * reason, event, verdict) differ, fails the run with the frame, the
 * policy and both answers. The policy read back from the maps
 * (ta_policy_decode, what `policy show` prints, with the test tap's guard
 * and fdb) must give the model the same answers as the policy written. The
 * program is a private plane's; the test tap is lo, bound to the policy.
 *
 * Then two-way policies (ct.c): sequences of frames both ways.
 *
 *   diff_test [--seed N] [--frames N] [--policies N] [--sequences N] [--pairs N]
 *             [--quiet]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ct.h"
#include "gen.h"
#include "user/lib/plane/counters.h"
#include "user/lib/plane/decode.h"
#include "user/lib/plane/guard.h"
#include "user/lib/plane/policies.h"
#include "user/lib/plane/taps.h"
#include "user/lib/policy/model.h"
#include "user/lib/policy/names.h"
#include "user/lib/policy/parse.h"
#include "user/lib/policy/print.h"

#define BATCH	   4096
#define FRAME_MAX  1024
#define LO_IFINDEX 1
#define LO_NAME	   "lo"

struct frame {
	uint8_t d[FRAME_MAX];
	uint16_t len;	 /* the whole frame */
	uint16_t linear; /* bytes in the linear part (== len unless split) */
};

/* Every counter the program keeps for the test tap, rules of the version
 * it runs (the default's at TA_MAX_RULES, as the model counts it). */
#define RULE_COUNTS (TA_MAX_RULES + 1)
struct counts {
	struct ta_counter verdict[TA_NR_VERDICTS];
	struct ta_counter rule[RULE_COUNTS];
	struct ta_counter parse[TA_PARSE_MAX];
	struct ta_counter guard[TA_GUARD_MAX];
	struct ta_counter event[TA_EV_MAX];
};

struct diff {
	struct ta_plane pl;
	struct ta_tap_state tap; /* lo's binding */
	int prog;
	struct ta_policy_spec spec;
	struct ta_policy_spec decoded; /* spec, read back from the maps */
	uint64_t seed;
	uint32_t policy_nr;
	uint64_t frames_done;
};

static struct frame batch[BATCH];
/* What the model said over the whole run: shows what the frames reached. */
static struct counts coverage;

/* ---- the kernel side --------------------------------------------------------
 */

static int env_open(struct diff *t)
{
	struct ta_error e;

	if (ta_plane_private(&t->pl, &e)) {
		fprintf(stderr, "%s\n", e.text);
		return -EIO;
	}
	t->prog = t->pl.prog_fd;
	return 0;
}

static void env_close(struct diff *t)
{
	ta_plane_close(&t->pl);
}

static int kernel_run(const struct diff *t, const struct frame *f,
		      uint32_t *verdict)
{
	static uint8_t out[FRAME_MAX];
	struct xdp_md ctx = {.data = 0, .data_end = f->linear};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = f->d,
		    .data_size_in = f->len, .data_out = out,
		    .data_size_out = sizeof(out), .repeat = 1);

	if (f->linear < f->len) { /* a multi-buffer frame */
		opts.ctx_in = &ctx;
		opts.ctx_size_in = sizeof(ctx);
	}
	if (bpf_prog_test_run_opts(t->prog, &opts))
		return -errno;
	*verdict = opts.retval;
	return 0;
}

static int read_counts(struct diff *t, struct counts *c)
{
	static struct ta_counter stat[TA_TAP_STATS], rule[TA_MAX_RULES + 1];
	struct ta_rule_counters info;
	struct ta_tap_key key = t->tap.key;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = ta_tap_read(&t->pl, &key, &t->tap);
	ret = ret ?: ta_tap_stats_read(&t->pl, &t->tap, stat);
	ret = ret ?: ta_tap_rule_counters(&t->pl, &t->tap, 0, &info, rule);
	if (ret)
		return ret;
	memcpy(c->verdict, stat + TA_STAT_VERDICT, sizeof(c->verdict));
	memcpy(c->parse, stat + TA_STAT_PARSE, sizeof(c->parse));
	memcpy(c->guard, stat + TA_STAT_GUARD, sizeof(c->guard));
	memcpy(c->event, stat + TA_STAT_EVENT, sizeof(c->event));
	memcpy(c->rule, rule, info.nr_rules * sizeof(*rule));
	c->rule[TA_MAX_RULES] = rule[info.nr_rules];
	return 0;
}

/* The spec as policy "diff" (its fdb the test tap's), lo bound to it with
 * the spec's guard; rate off. Then what the maps say, read back. */
static int install(struct diff *t)
{
	struct ta_policy_spec spec = t->spec;
	struct ta_guard_spec guard = t->spec.guard;
	struct ta_bind b = {.ifname = LO_NAME, .guard = guard.flags ? &guard : NULL,
			    .entry_only = true};
	struct ta_load_result res;
	struct ta_policy_info info;
	enum ta_bind_result r;
	struct ta_tap_key key;
	struct ta_error e;
	int ret;

	memset(&spec.guard, 0, sizeof(spec.guard));
	memset(&spec.rate, 0, sizeof(spec.rate));
	ret = ta_policy_load(&t->pl, "diff", &spec, true, &res, &e);
	b.policy = res.index;
	ret = ret ?: ta_tap_bind(&t->pl, &b, &r, &e);
	if (ret) {
		fprintf(stderr, "%s\n", e.text);
		return -EIO;
	}
	ta_policy_spec_free(&t->decoded);
	ret = ta_tap_key_of(&t->pl, LO_NAME, &key) ?: ta_tap_read(&t->pl, &key, &t->tap);
	ret = ret ?: ta_policy_get(&t->pl, res.index, &info);
	ret = ret ?: ta_policy_decode(&t->pl, res.index, info.slot, &t->decoded);
	return ret ?: ta_tap_guard_read(&t->pl, &t->tap, &t->decoded.guard);
}

/* ---- the model side ---------------------------------------------------------
 */

static void add(struct ta_counter *c, uint32_t len)
{
	c->packets++;
	c->bytes += len;
}

/* What the program should have counted for this frame. */
static void model_count(const struct ta_model_result *res, uint32_t len,
			struct counts *c)
{
	int i;

	add(&c->verdict[res->verdict], len);
	for (i = 0; i < TA_PARSE_MAX; i++)
		if (res->parse_info & (1u << i))
			add(&c->parse[i], len);
	for (i = 0; i < TA_EV_MAX; i++)
		if (res->events & (1u << i))
			add(&c->event[i], len);
	if (res->stage == TA_MODEL_PARSE)
		add(&c->parse[res->parse_class], len);
	else if (res->stage == TA_MODEL_GUARD)
		add(&c->guard[res->guard_reason], len);
	else
		add(&c->rule[res->rule < 0 ? TA_MAX_RULES : res->rule], len);
}

static void model_run(const struct diff *t, const struct frame *f,
		      struct ta_model_result *res)
{
	ta_model_run(&t->spec, f->d, f->linear, res);
}

/* ---- reporting
 * ---------------------------------------------------------------- */

static void print_hex(const struct frame *f)
{
	uint16_t i;

	for (i = 0; i < f->len; i++)
		printf("%02x", f->d[i]);
	printf("\n");
}

static void print_model(const struct ta_model_result *res)
{
	printf("model: verdict %s, ", ta_verdict_name(res->verdict));
	switch (res->stage) {
	case TA_MODEL_PARSE:
		printf("parse drop %s", ta_parse_name(res->parse_class));
		break;
	case TA_MODEL_GUARD:
		printf("guard drop %s", ta_guard_name(res->guard_reason));
		break;
	case TA_MODEL_RULE:
		printf("rule %d (line %d of the policy below, after the "
		       "guard/fdb lines)",
		       res->rule, res->rule + 1);
		break;
	case TA_MODEL_DEFAULT:
		printf("default");
		break;
	case TA_MODEL_CT:
		printf("the connection table");
		break;
	}
	printf(", parse info 0x%x, events 0x%x\n", res->parse_info,
	       res->events);
}

static void report(const struct diff *t, const struct frame *f,
		   const char *what)
{
	struct ta_model_result res;

	model_run(t, f, &res);
	printf("FAIL disagreement (%s): seed %llu, policy %u, after %llu "
	       "frames\n",
	       what, (unsigned long long)t->seed, t->policy_nr,
	       (unsigned long long)t->frames_done);
	printf("frame (%u bytes, %u linear):\n", f->len, f->linear);
	print_hex(f);
	print_model(&res);
	printf("policy:\n");
	policy_print(stdout, &t->spec);
}

static void print_counter_diff(const char *map, uint32_t key,
			       const struct ta_counter *kernel,
			       const struct ta_counter *model)
{
	printf("  %s[%u]: program %llu packets %llu bytes, model %llu packets "
	       "%llu bytes\n",
	       map, key, (unsigned long long)kernel->packets,
	       (unsigned long long)kernel->bytes,
	       (unsigned long long)model->packets,
	       (unsigned long long)model->bytes);
}

/* Compare n counters; print the ones that differ. */
static int compare_counters(const char *map, const struct ta_counter *kernel,
			    const struct ta_counter *model, uint32_t n)
{
	int bad = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (kernel[i].packets == model[i].packets &&
		    kernel[i].bytes == model[i].bytes)
			continue;
		print_counter_diff(map, i, &kernel[i], &model[i]);
		bad = 1;
	}
	return bad;
}

/* The program's counts since `before`, against the model's. */
static int compare_counts(const struct counts *before,
			  const struct counts *after,
			  const struct counts *model, int quiet)
{
	struct counts delta;
	const struct ta_counter *b = (const void *)before,
				*a = (const void *)after;
	struct ta_counter *d = (void *)&delta;
	size_t i, n = sizeof(delta) / sizeof(*d);
	int bad = 0;

	for (i = 0; i < n; i++) {
		d[i].packets = a[i].packets - b[i].packets;
		d[i].bytes = a[i].bytes - b[i].bytes;
	}
	if (!memcmp(&delta, model, sizeof(delta)))
		return 0;
	if (quiet)
		return 1;
	bad |= compare_counters("verdict", delta.verdict, model->verdict, TA_NR_VERDICTS);
	bad |= compare_counters("rule (default last)", delta.rule, model->rule, RULE_COUNTS);
	bad |= compare_counters("parse", delta.parse, model->parse, TA_PARSE_MAX);
	bad |= compare_counters("guard", delta.guard, model->guard, TA_GUARD_MAX);
	bad |= compare_counters("event", delta.event, model->event, TA_EV_MAX);
	return bad;
}

/* ---- one batch
 * ------------------------------------------------------------------ */

/* Counters disagree somewhere in the batch: run its frames again one at a
 * time to name the first frame. */
static int locate_counter_diff(struct diff *t, uint32_t n)
{
	static struct counts before, after, model;
	struct ta_model_result res;
	uint32_t i, verdict;
	int ret;

	for (i = 0; i < n; i++) {
		memset(&model, 0, sizeof(model));
		model_run(t, &batch[i], &res);
		model_count(&res, batch[i].len, &model);
		ret = read_counts(t, &before)
			      ?: kernel_run(t, &batch[i], &verdict);
		ret = ret ?: read_counts(t, &after);
		if (ret)
			return ret;
		if (compare_counts(&before, &after, &model, 1)) {
			report(t, &batch[i], "counters");
			compare_counts(&before, &after, &model, 0);
			return 1;
		}
	}
	printf("FAIL counters of a batch differ, but no single frame's do\n");
	return 1;
}

static void coverage_add(const struct counts *c)
{
	const struct ta_counter *from = (const void *)c;
	struct ta_counter *to = (void *)&coverage;
	size_t i;

	for (i = 0; i < sizeof(coverage) / sizeof(*to); i++) {
		to[i].packets += from[i].packets;
		to[i].bytes += from[i].bytes;
	}
}

static void coverage_print(void)
{
	uint64_t rules = 0;
	int i, highest = -1;

	printf("verdicts:");
	for (i = 0; i < TA_NR_VERDICTS; i++)
		printf(" %s %llu", ta_verdict_name(i),
		       (unsigned long long)coverage.verdict[i].packets);
	for (i = 0; i < TA_MAX_RULES; i++) {
		rules += coverage.rule[i].packets;
		if (coverage.rule[i].packets)
			highest = i;
	}
	printf("\nclassified: by a rule %llu (the highest hit: rule %d), by "
	       "the default %llu\nparse:",
	       (unsigned long long)rules, highest,
	       (unsigned long long)coverage.rule[TA_MAX_RULES].packets);
	for (i = 0; i < TA_PARSE_MAX; i++)
		printf(" %s %llu", ta_parse_name(i),
		       (unsigned long long)coverage.parse[i].packets);
	printf("\nguard:");
	for (i = 0; i < TA_GUARD_MAX; i++)
		printf(" %s %llu", ta_guard_name(i),
		       (unsigned long long)coverage.guard[i].packets);
	printf("\nevents: fdb_hit %llu fdb_miss %llu\n",
	       (unsigned long long)coverage.event[TA_EV_FDB_HIT].packets,
	       (unsigned long long)coverage.event[TA_EV_FDB_MISS].packets);
}

/* The decoded policy decides every frame as the written one does. */
static int check_decoded(const struct diff *t, const struct frame *f,
			 const struct ta_model_result *want)
{
	struct ta_model_result got;

	ta_model_run(&t->decoded, f->d, f->linear, &got);
	if (got.verdict == want->verdict && got.stage == want->stage &&
	    got.rule == want->rule && got.guard_reason == want->guard_reason)
		return 0;
	report(t, f, "policy read back from the maps");
	printf("with the policy read back: verdict %s, stage %d, rule %d, "
	       "guard %s\n",
	       ta_verdict_name(got.verdict), got.stage, got.rule,
	       ta_guard_name(got.guard_reason));
	printf("policy read back (ta_policy_decode):\n");
	ta_policy_write(stdout, &t->decoded);
	return 1;
}

static int run_batch(struct diff *t, uint32_t n)
{
	static struct counts before, after, model;
	struct ta_model_result res;
	uint32_t i, verdict;
	int ret;

	memset(&model, 0, sizeof(model));
	ret = read_counts(t, &before);
	for (i = 0; !ret && i < n; i++) {
		ret = kernel_run(t, &batch[i], &verdict);
		if (ret)
			break;
		model_run(t, &batch[i], &res);
		model_count(&res, batch[i].len, &model);
		if (check_decoded(t, &batch[i], &res))
			return 1;
		if (verdict != res.verdict) {
			report(t, &batch[i], "verdict");
			printf("program: verdict %s\n",
			       ta_verdict_name(verdict));
			return 1;
		}
		t->frames_done++;
	}
	coverage_add(&model);
	ret = ret ?: read_counts(t, &after);
	if (ret) {
		printf("FAIL test run: %s\n", strerror(-ret));
		return 1;
	}
	if (compare_counts(&before, &after, &model, 1))
		return locate_counter_diff(t, n);
	return 0;
}

/* ---- frames
 * --------------------------------------------------------------------- */

static void frame_from(struct frame *f, const struct pkt *p, uint32_t len,
		       uint32_t linear)
{
	memcpy(f->d, p->d, len);
	f->len = (uint16_t)len;
	f->linear = (uint16_t)linear;
}

/*
 * Fill up to `room` frames from one random frame: itself, cut at a
 * random length, mutated, split into a multi-buffer frame, or (one in
 * 32) cut at every length from 14 bytes up. Returns how many.
 */
static uint32_t frames_from_one(struct rng *r, struct frame *out, uint32_t room)
{
	static struct pkt p;
	uint32_t kind = rng_below(r, 32), n = 0, len;

	gen_frame(r, &p);
	if (p.len > FRAME_MAX)
		p.len = FRAME_MAX;
	if (kind == 0) { /* every length; the kernel refuses < 14 bytes */
		for (len = 14; len <= p.len && n < room; len++)
			frame_from(&out[n++], &p, len, len);
		return n;
	}
	if (kind < 8)
		gen_mutate(r, &p);
	if (kind >= 8 && kind < 14)
		p.len = 14 + rng_below(r, p.len - 14 + 1);
	len = p.len;
	if (kind >= 14 && kind < 18 && len > 1) /* headers split off */
		frame_from(&out[n++], &p, len, 1 + rng_below(r, len - 1));
	else
		frame_from(&out[n++], &p, len, len);
	return n;
}

/* ---- main
 * ------------------------------------------------------------------------ */

struct options {
	uint64_t seed;
	uint64_t frames;
	uint32_t policies;
	uint32_t sequences;
	uint32_t pairs;
	int quiet;
};

static int parse_args(int argc, char **argv, struct options *o)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--quiet")) {
			o->quiet = 1;
			continue;
		}
		if (!v)
			goto usage;
		if (!strcmp(argv[i], "--seed"))
			o->seed = strtoull(v, NULL, 0);
		else if (!strcmp(argv[i], "--frames"))
			o->frames = strtoull(v, NULL, 0);
		else if (!strcmp(argv[i], "--policies"))
			o->policies = strtoul(v, NULL, 0);
		else if (!strcmp(argv[i], "--sequences"))
			o->sequences = strtoul(v, NULL, 0);
		else if (!strcmp(argv[i], "--pairs"))
			o->pairs = strtoul(v, NULL, 0);
		else
			goto usage;
		i++;
	}
	if (o->policies)
		return 0;
usage:
	fprintf(stderr, "Usage: diff_test [--seed N] [--frames N] [--policies "
			"N] [--sequences N] [--pairs N] [--quiet]\n");
	return -1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Policy k: up to 4, 16, 64, 256 or 1024 (TA_MAX_RULES) rules; every
 * other one has a guard. */
static int run_policy(struct diff *t, struct rng *r, uint32_t k,
		      uint64_t frames, int quiet)
{
	static const uint32_t max_rules[] = {4, 16, 64, 256, TA_MAX_RULES};
	uint64_t end = t->frames_done + frames;
	int ret;

	ta_policy_spec_free(&t->spec);
	gen_policy(r, &t->spec, max_rules[k % 5], k % 2, LO_IFINDEX, LO_NAME);
	t->policy_nr = k;
	ret = install(t);
	if (ret) {
		printf("FAIL install policy %u: %s\n", k, strerror(-ret));
		policy_print(stdout, &t->spec);
		return 1;
	}
	if (!quiet)
		printf("policy %u: %u rules, default %s, guard 0x%x, %u fdb\n",
		       k, t->spec.nr_rules,
		       ta_action_name(t->spec.default_action),
		       t->spec.guard.flags, t->spec.nr_fdb);
	while (t->frames_done < end) {
		uint32_t n = 0, room = end - t->frames_done < BATCH
					       ? end - t->frames_done
					       : BATCH;

		while (n < room)
			n += frames_from_one(r, &batch[n], room - n);
		if (run_batch(t, n))
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = {.seed = 1, .frames = 1000000, .policies = 32, .sequences = 100,
			  .pairs = 50};
	static struct diff t;
	struct rng r;
	double start;
	uint32_t k;
	int ret;

	if (parse_args(argc, argv, &o))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = env_open(&t);
	if (ret) {
		printf("FAIL load: cannot load tap_accel: %s\n",
		       strerror(-ret));
		printf("0 passed, 1 failed\n");
		return 1;
	}
	t.seed = o.seed;
	rng_seed(&r, o.seed);
	start = now_s();
	ret = 0;
	for (k = 0; k < o.policies && !ret; k++)
		ret = run_policy(&t, &r, k,
				 o.frames / o.policies +
					 (k < o.frames % o.policies),
				 o.quiet);
	if (!ret)
		ret = ct_diff(&t.pl, &r, o.sequences, o.pairs, o.quiet);
	if (!ret) {
		double s = now_s() - start;

		coverage_print();
		printf("PASS %llu frames, %u policies, %u two-way sequences, %u pairs, seed %llu: "
		       "model and program agree (%.1f s)\n",
		       (unsigned long long)t.frames_done, o.policies, o.sequences, o.pairs,
		       (unsigned long long)o.seed, s);
	}
	printf("%d passed, %d failed\n", !ret, !!ret);
	ta_policy_spec_free(&t.spec);
	ta_policy_spec_free(&t.decoded);
	env_close(&t);
	return ret ? 1 : 0;
}
