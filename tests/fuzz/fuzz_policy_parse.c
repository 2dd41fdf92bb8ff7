// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * fuzz_policy_parse - libFuzzer target for the policy-file parser
 * (user/lib/policy/parse.c): any bytes are a policy file. Besides memory
 * errors and undefined behaviour (ASan, UBSan), it checks what the parser
 * promises: a parsed spec holds only values the compiler accepts, a
 * refused one is empty and its message names FILE:LINE:COL, and writing a
 * parsed spec back as text (ta_policy_write) parses to the same spec.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "user/lib/policy/parse.h"
#include "user/lib/policy/print.h"

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond))                                                   \
			abort();                                               \
	} while (0)

static int constrains(const struct ta_rule_spec *r, enum ta_field f)
{
	return r->fields & (1u << f);
}

/* What the compiler (policy/compile.c) would refuse with -EINVAL. */
static void check_rule(const struct ta_rule_spec *r)
{
	CHECK(!(r->fields & ~((1u << TA_F_MAX) - 1)));
	CHECK(r->action < TA_ACT_MAX);
	CHECK(r->action != TA_ACT_REDIRECT || r->redirect_dev[0]);
	CHECK(!constrains(r, TA_F_VLAN) || r->vlan <= 4095);
	CHECK(!constrains(r, TA_F_SRC_IP) || r->src_ip.prefixlen <= 128);
	CHECK(!constrains(r, TA_F_DST_IP) || r->dst_ip.prefixlen <= 128);
	CHECK(!constrains(r, TA_F_SRC_PORT) || r->sport_lo <= r->sport_hi);
	CHECK(!constrains(r, TA_F_DST_PORT) || r->dport_lo <= r->dport_hi);
	CHECK(memchr(r->redirect_dev, 0, sizeof(r->redirect_dev)));
	CHECK(r->pos.line > 0 || r->implicit);
	CHECK(!(ta_rule_dirs(r) & TA_DIRS_IN) || ta_action_valid_in(r->action));
	CHECK(!(r->states & ~TA_STATES_ALL));
}

static void check_spec(const struct ta_policy_spec *s)
{
	CHECK(s->nr_rules <= TA_MAX_RULES);
	CHECK(s->default_action < TA_ACT_MAX);
	CHECK(ta_action_valid_in(s->default_in_action));
	CHECK(s->guard.nr_ip4 <= TA_MAX_GUARD_ADDRS);
	CHECK(s->guard.nr_ip6 <= TA_MAX_GUARD_ADDRS);
	for (uint32_t i = 0; i < s->nr_rules; i++)
		check_rule(&s->rules[i]);
	for (uint32_t i = 0; i < s->nr_fdb; i++)
		CHECK(memchr(s->fdb[i].dev, 0, sizeof(s->fdb[i].dev)));
}

/* Equal but for where things came from (positions, digest). */
static void check_same(const struct ta_policy_spec *a,
		       const struct ta_policy_spec *b)
{
	CHECK(a->nr_rules == b->nr_rules && a->nr_fdb == b->nr_fdb);
	CHECK(a->default_action == b->default_action);
	CHECK(a->default_in_action == b->default_in_action);
	CHECK(ta_policy_two_way(a) == ta_policy_two_way(b));
	CHECK(!strcmp(a->default_dev, b->default_dev));
	CHECK(!memcmp(&a->guard, &b->guard, sizeof(a->guard)));
	CHECK(!memcmp(&a->rate, &b->rate, sizeof(a->rate)));
	for (uint32_t i = 0; i < a->nr_rules; i++) {
		struct ta_rule_spec x = a->rules[i], y = b->rules[i];

		x.pos = y.pos = (struct ta_srcpos){0};
		CHECK(!memcmp(&x, &y, sizeof(x)));
	}
	for (uint32_t i = 0; i < a->nr_fdb; i++) {
		CHECK(!memcmp(a->fdb[i].mac, b->fdb[i].mac, 6));
		CHECK(!strcmp(a->fdb[i].dev, b->fdb[i].dev));
	}
}

/* ta_policy_write's text parses back into the same spec. */
static void check_round_trip(const struct ta_policy_spec *spec)
{
	struct ta_policy_spec again;
	struct ta_error e;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	CHECK(out);
	ta_policy_write(out, spec);
	CHECK(!fclose(out));
	if (ta_policy_parse(text, len, "written", &again, &e)) {
		fprintf(stderr, "written text refused: %s\n%s", e.text, text);
		abort();
	}
	check_same(spec, &again);
	ta_policy_spec_free(&again);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ta_policy_spec empty;
	struct ta_policy_spec spec;
	struct ta_error e;
	int ret;

	memset(&spec, 0xa5, sizeof(spec)); /* the parser must set it all */
	ret = ta_policy_parse((const char *)data, size, "fuzz", &spec, &e);
	if (ret) {
		CHECK(ret < 0 && e.input && e.located);
		CHECK(!memcmp(&spec, &empty, sizeof(spec)));
		CHECK(!strncmp(e.text, "fuzz:", 5));
		CHECK(memchr(e.text, 0, sizeof(e.text)));
		return 0;
	}
	check_spec(&spec);
	check_round_trip(&spec);
	ta_policy_spec_free(&spec);
	return 0;
}
