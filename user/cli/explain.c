// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * explain.c - tap-accel policy explain FILE --frame HEX: what the policy
 * in FILE does with one frame, and why, from the reference model
 * (lib/policy/model.c); no kernel involved.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/policy/model.h"
#include "lib/policy/names.h"
#include "lib/policy/parse.h"
#include "lib/policy/print.h"
#include "verbs.h"

#define FRAME_MAX 16384

/* "0a:1b 2c..." into bytes; the count, or -1 if not an even run of hex
 * digits. */
static int hex_decode(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;
	int half = -1;

	for (; *hex; hex++) {
		int v;

		if (isspace((unsigned char)*hex) || *hex == ':')
			continue;
		if (!isxdigit((unsigned char)*hex) || n == max)
			return -1;
		v = isdigit((unsigned char)*hex)
			    ? *hex - '0'
			    : tolower((unsigned char)*hex) - 'a' + 10;
		if (half < 0) {
			half = v;
			continue;
		}
		out[n++] = (uint8_t)(half << 4 | v);
		half = -1;
	}
	return half < 0 ? (int)n : -1;
}

/* Line `line` (1-based) of the file, without its newline; "" if none. */
static void file_line(const char *file, int line, char *buf, size_t size)
{
	FILE *f = fopen(file, "r");
	int n = 0;

	buf[0] = 0;
	if (!f)
		return;
	while (fgets(buf, (int)size, f))
		if (++n == line)
			break;
	if (n != line)
		buf[0] = 0;
	buf[strcspn(buf, "\r\n")] = 0;
	fclose(f);
}

/* The line of the `default` statement of direction dir (`default in`, or
 * `default [out]`), 0 if the file has none. */
static int default_line(const char *file, uint32_t dir)
{
	char buf[1024];
	FILE *f = fopen(file, "r");
	int n = 0, found = 0;

	if (!f)
		return 0;
	while (!found && fgets(buf, sizeof(buf), f)) {
		const char *s = buf + strspn(buf, " \t");

		n++;
		found = !strncmp(s, "default", 7) && (s[7] == ' ' || s[7] == '\t');
		s += 7;
		s += strspn(s, " \t");
		found = found && (dir == TA_DIR_IN) == (!strncmp(s, "in", 2) &&
							(s[2] == ' ' || s[2] == '\t'));
	}
	fclose(f);
	return found ? n : 0;
}

/* ---- describing the frame ------------------------------------------------ */

static const char *ip_text(const struct ta_model_frame *f, const uint8_t *ip,
			   char *buf)
{
	if (f->l3 == TA_MODEL_L3_IP4)
		return inet_ntop(AF_INET, ip + 12, buf, INET6_ADDRSTRLEN);
	return inet_ntop(AF_INET6, ip, buf, INET6_ADDRSTRLEN);
}

static void describe_frame(const struct ta_model_frame *f, size_t len)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN], m1[18], m2[18];

	printf("frame:   %zu bytes, %s -> %s", len,
	       ta_format_mac(f->src_mac, m1), ta_format_mac(f->dst_mac, m2));
	if (f->has_vlan)
		printf(", vlan %u", f->vlan);
	printf(", ethertype 0x%04x", f->ethertype);
	if (f->l3 == TA_MODEL_L3_IP4 || f->l3 == TA_MODEL_L3_IP6)
		printf(", %s %s -> %s proto %u",
		       f->l3 == TA_MODEL_L3_IP4 ? "IPv4" : "IPv6",
		       ip_text(f, f->src_ip, a), ip_text(f, f->dst_ip, b),
		       f->ip_proto);
	if (f->has_ports)
		printf(", ports %u -> %u", f->sport, f->dport);
	if (f->has_icmp)
		printf(", icmp type %u", f->icmp_type);
	if (f->arp_eth_ip4)
		printf(", ARP from %s %s", ta_format_mac(f->arp_sha, m1),
		       inet_ntop(AF_INET, f->arp_spa, a, sizeof(a)));
	printf("\n");
}

/* ---- text and JSON ----------------------------------------------------- */

struct explained {
	const char *file;
	const struct ta_policy_spec *spec;
	struct ta_model_result res;
	size_t len;
	int line; /* of the deciding rule or default; 0 if none */
	bool assumed; /* the state is --state's */
	char text[1024];
};

static void print_parse_info(uint32_t info)
{
	for (int i = 0; i < TA_PARSE_MAX; i++)
		if (info & (1u << i))
			printf(" [%s]", ta_parse_name(i));
}

static void print_text(const struct explained *e)
{
	const struct ta_model_result *r = &e->res;

	if (r->stage != TA_MODEL_PARSE || r->parse_class != TA_PARSE_RUNT)
		describe_frame(&r->frame, e->len);
	printf("parse:   %s", r->stage == TA_MODEL_PARSE
				      ? ta_parse_name(r->parse_class)
				      : "ok");
	print_parse_info(r->parse_info);
	printf("\nguard:   %s\n",
	       r->dir == TA_DIR_IN ? "not applied (to the guest)"
	       : !e->spec->guard.flags ? "off"
	       : r->stage == TA_MODEL_PARSE
		       ? "not reached"
		       : ta_guard_name(r->guard_reason));
	if (r->ct_state < TA_CT_STATE_MAX)
		printf("state:   %s (%s)\n", ta_ct_state_names[r->ct_state],
		       e->assumed ? "as --state says" : "no connection before it");
	if (r->dir == TA_DIR_IN)
		printf("way:     in, to the guest\n");
	if (r->stage == TA_MODEL_RULE && !e->line)
		printf("rule:    %s (a two-way policy's own, before the file's)\n", e->text);
	else if (r->stage == TA_MODEL_RULE)
		printf("rule:    %s:%d: %s\n", e->file, e->line, e->text);
	else if (r->stage == TA_MODEL_DEFAULT && e->line)
		printf("default: %s:%d: %s\n", e->file, e->line, e->text);
	else if (r->stage == TA_MODEL_DEFAULT)
		printf("default: pass (the file has no default)\n");
	if (r->events & (1u << TA_EV_FDB_HIT))
		printf("fdb:     destination found: redirected\n");
	if (r->events & (1u << TA_EV_FDB_MISS))
		printf("fdb:     broadcast, multicast or unknown destination: "
		       "passed\n");
	printf("verdict: %s\n", ta_verdict_name(r->verdict));
	if (e->spec->rate.pps || e->spec->rate.bps)
		printf("note:    the rate limit is not applied here\n");
}

static void print_json(const struct explained *e)
{
	const struct ta_model_result *r = &e->res;

	jw_object_begin(&json);
	jw_kv_string(&json, "file", e->file);
	jw_kv_u64(&json, "frame_bytes", e->len);
	jw_kv_string(&json, "parse",
		     r->stage == TA_MODEL_PARSE
			     ? ta_parse_name(r->parse_class)
			     : "ok");
	jw_key(&json, "parse_info");
	jw_array_begin(&json);
	for (int i = 0; i < TA_PARSE_MAX; i++)
		if (r->parse_info & (1u << i))
			jw_string(&json, ta_parse_name(i));
	jw_array_end(&json);
	jw_kv_string(&json, "guard",
		     r->dir == TA_DIR_IN ? "not applied"
		     : !e->spec->guard.flags ? "off"
		     : r->stage == TA_MODEL_PARSE
			     ? "not reached"
			     : ta_guard_name(r->guard_reason));
	jw_key(&json, "rule");
	if (r->stage == TA_MODEL_RULE)
		jw_i64(&json, r->rule);
	else
		jw_null(&json);
	jw_kv_bool(&json, "default", r->stage == TA_MODEL_DEFAULT);
	if (e->line || e->text[0]) {
		if (e->line)
			jw_kv_u64(&json, "line", e->line);
		jw_kv_string(&json, "text", e->text);
	}
	if (r->ct_state < TA_CT_STATE_MAX)
		jw_kv_string(&json, "state", ta_ct_state_names[r->ct_state]);
	if (r->ct_state < TA_CT_STATE_MAX || r->dir == TA_DIR_IN)
		jw_kv_string(&json, "direction", ta_dir_names[r->dir]);
	if (r->stage == TA_MODEL_RULE || r->stage == TA_MODEL_DEFAULT)
		jw_kv_string(&json, "action", ta_action_name(r->action));
	jw_kv_string(&json, "verdict", ta_verdict_name(r->verdict));
	jw_object_end(&json);
	jw_end_document(&json);
}

struct explain_opts {
	const char *frame;
	int direction; /* enum ta_dir */
	int state;     /* enum ta_ct_state, or -1: as a first frame */
};

/* The frame under the policy: as --direction and --state say. */
static void judge(const struct ta_policy_spec *spec, const struct explain_opts *o,
		  const uint8_t *frame, size_t len, struct ta_model_result *res)
{
	struct ta_model_tap tap = {.id = 1};
	struct ta_model_ct *ct;

	if (o->state >= 0) {
		ta_model_run_in_state(spec, o->direction == TA_DIR_IN ? TA_DIR_IN : TA_DIR_OUT,
				      (uint32_t)o->state, frame, len, res);
		return;
	}
	ct = o->direction == TA_DIR_IN ? ta_model_ct_new() : NULL;
	if (ct)
		ta_model_run_ct(spec, 1, &tap, TA_DIR_IN, 0, ct, frame, len, res);
	else
		ta_model_run(spec, frame, len, res);
	ta_model_ct_free(ct);
}

static int explain(const char *file, const char *hex, const struct explain_opts *o)
{
	static uint8_t frame[FRAME_MAX];
	static struct explained e;
	struct ta_policy_spec spec;
	struct ta_error err;
	int n;

	n = hex_decode(hex, frame, sizeof(frame));
	if (n < 0)
		return user_error("policy explain: --frame expects an even number of hex digits "
				  "(at most %d bytes)", FRAME_MAX);
	if (ta_policy_parse_file(file, &spec, &err))
		return report_error(&err);
	memset(&e, 0, sizeof(e));
	e.file = file;
	e.spec = &spec;
	e.len = (size_t)n;
	e.assumed = o->state >= 0;
	judge(&spec, o, frame, e.len, &e.res);
	if (e.res.stage == TA_MODEL_RULE && spec.rules[e.res.rule].implicit) {
		FILE *f = fmemopen(e.text, sizeof(e.text) - 1, "w");

		if (f) {
			ta_rule_write(f, &spec.rules[e.res.rule], true);
			fclose(f);
		}
		e.text[strcspn(e.text, "\n")] = '\0';
	} else if (e.res.stage == TA_MODEL_RULE) {
		e.line = spec.rules[e.res.rule].pos.line;
	}
	else if (e.res.stage == TA_MODEL_DEFAULT)
		e.line = default_line(file, e.res.dir);
	if (e.line)
		file_line(file, e.line, e.text, sizeof(e.text));
	if (cli.json)
		print_json(&e);
	else
		print_text(&e);
	ta_policy_spec_free(&spec);
	return EXIT_OK;
}

static int run_explain(const void *opts, int argc, char **argv)
{
	const struct explain_opts *o = opts;

	(void)argc;
	if (!o->frame)
		return user_error("policy explain: --frame HEX is needed; see tap-accel policy "
				  "explain --help");
	return explain(argv[0], o->frame, o);
}

static const struct opt_choice directions[] = {
	{ "out", TA_DIR_OUT }, { "in", TA_DIR_IN }, { NULL, 0 },
};

static const struct opt_choice states[] = {
	{ "new", TA_CT_NEW }, { "established", TA_CT_ESTABLISHED }, { "related", TA_CT_RELATED },
	{ "invalid", TA_CT_INVALID }, { "untracked", TA_CT_UNTRACKED }, { NULL, 0 },
};

static const struct option_spec explain_options[] = {
	{ "frame", 0, OPT_STRING, offsetof(struct explain_opts, frame), "HEX",
	  "the frame, from its Ethernet header on, as hex digits (blanks and ':'\n"
	  "are ignored)", NULL, 0, 0 },
	{ "direction", 0, OPT_CHOICE, offsetof(struct explain_opts, direction), "DIR",
	  "out (the guest sends it, the default) or in (it goes to the guest)", directions, 0, 0 },
	{ "state", 0, OPT_CHOICE, offsetof(struct explain_opts, state), "STATE",
	  "judge it as of a connection in this state (new, established, related,\n"
	  "invalid, untracked); by default as a frame with no connection before it",
	  states, 0, 0 },
	OPTIONS_END,
};

static const struct explain_opts explain_defaults = {.direction = TA_DIR_OUT, .state = -1};

const struct command explain_cmd = {
	.name = "explain",
	.args = "FILE",
	.summary = "what a policy file does with one frame, and why (no kernel needed)",
	.help = "What the policy in FILE does with one frame the guest writes, and why:\n"
		"the parse result, the guard's verdict, the first matching rule (its\n"
		"line in FILE) or the default, and the XDP verdict. The rate limit is\n"
		"not applied. A two-way policy judges the frame with its connection's\n"
		"state: by default as if no connection came before it, or as --state\n"
		"says; --direction in judges what goes to the guest.\n",
	.options = explain_options,
	.opts_size = sizeof(struct explain_opts),
	.defaults = &explain_defaults,
	.min_args = 1,
	.max_args = 1,
	.run = run_explain,
};
