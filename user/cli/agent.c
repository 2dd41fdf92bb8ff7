// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * agent.c - the command line of `tap-accel agent`: run the agent
 * (user/agent/) in the foreground, or check its configuration.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/pve.h"
#include "lib/base/lex.h"
#include "verbs.h"

struct agent_cli {
	const char *config;
	const char *run_dir;
	bool check;
};

static const struct option_spec agent_options[] = {
	{ "config", 0, OPT_STRING, offsetof(struct agent_cli, config), "DIR",
	  "the configuration folder (default " AGENT_CONFIG_DIR "): agent.conf,\n"
	  "policies/NAME.policy, bindings.d/*.conf", NULL, 0, 0 },
	{ "run-dir", 0, OPT_STRING, offsetof(struct agent_cli, run_dir), "DIR",
	  "the adapters' binding files (default " AGENT_RUN_DIR "),\n"
	  "read with bindings.d and watched while the agent runs", NULL, 0, 0 },
	{ "check", 0, OPT_FLAG, offsetof(struct agent_cli, check), NULL,
	  "check the configuration and every policy in it, without the kernel;\n"
	  "errors name FILE:LINE:COL, exit status 1", NULL, 0, 0 },
	OPTIONS_END,
};

static const struct agent_cli agent_defaults = {
	.config = AGENT_CONFIG_DIR,
	.run_dir = AGENT_RUN_DIR,
};

/* --check: errors as every verb reports them, warnings on stderr. */
static void check_said(void *arg, bool error, const char *text)
{
	struct ta_error e = {.err = EINVAL, .input = true, .located = true};

	char shown[sizeof(e.text)];

	(void)arg;
	/* a file's name or words: no control byte reaches the terminal */
	ta_escape_controls(text, shown, sizeof(shown));
	if (!error) {
		fprintf(stderr, "warning: %s\n", shown);
		return;
	}
	snprintf(e.text, sizeof(e.text), "%s", shown);
	report_error(&e);
}

static const char *unbound_word(const struct agent_config *cfg)
{
	return cfg->unbound == TA_UNBOUND_POLICY ? "policy"
	       : cfg->unbound == TA_UNBOUND_DROP ? "drop" : "pass";
}

static void check_json(const struct agent_config *cfg)
{
	jw_object_begin(&json);
	jw_kv_string(&json, "config", cfg->dir);
	jw_kv_string(&json, "run_dir", cfg->run_dir);
	jw_kv_bool(&json, "ok", true);
	jw_key(&json, "policies");
	jw_array_begin(&json);
	for (uint32_t i = 0; i < cfg->nr_policies; i++)
		jw_string(&json, cfg->policies[i].name);
	jw_array_end(&json);
	jw_key(&json, "files");
	jw_array_begin(&json);
	for (uint32_t i = 0; i < cfg->nr_order; i++)
		jw_string(&json, cfg->order[i]->path);
	jw_array_end(&json);
	jw_kv_u64(&json, "bindings", cfg->nr_binds);
	jw_kv_string(&json, "unbound", unbound_word(cfg));
	if (cfg->unbound == TA_UNBOUND_POLICY)
		jw_kv_string(&json, "unbound_policy", cfg->unbound_policy);
	jw_key(&json, "netns");
	jw_array_begin(&json);
	for (uint32_t i = 0; i < cfg->nr_netns; i++)
		jw_string(&json, cfg->netns[i]);
	jw_array_end(&json);
	if (cfg->conntrack.given) {
		char words[512];

		jw_kv_string(&json, "conntrack",
			     ta_ct_settings_words(&cfg->conntrack, words, sizeof(words)));
	}
	if (cfg->pve_dir)
		jw_kv_string(&json, "source_pve", cfg->pve_dir);
	jw_object_end(&json);
	jw_end_document(&json);
}

static void check_text(const struct agent_config *cfg)
{
	printf("%s: ok, %u policies, %u bindings in %u files, unbound %s%s%s", cfg->dir,
	       cfg->nr_policies, cfg->nr_binds, cfg->nr_order, unbound_word(cfg),
	       cfg->unbound == TA_UNBOUND_POLICY ? " " : "",
	       cfg->unbound == TA_UNBOUND_POLICY ? cfg->unbound_policy : "");
	printf(", watching host");
	for (uint32_t i = 0; i < cfg->nr_netns; i++)
		printf(", netns %s", cfg->netns[i]);
	if (cfg->conntrack.given) {
		char words[512];

		printf("; conntrack %s", ta_ct_settings_words(&cfg->conntrack, words, sizeof(words)));
	}
	if (cfg->pve_dir)
		printf("; source pve %s", cfg->pve_dir);
	printf("\n");
}

/* The exit code of agent_config_load() and agent_run(): -EINVAL says the
 * configuration is wrong, any other -errno that the system failed. */
static int agent_exit_code(int ret)
{
	return !ret ? EXIT_OK : ret == -EINVAL ? EXIT_USER : EXIT_SYSTEM;
}

static int run_check(const struct agent_cli *o)
{
	struct agent_report r = {.say = check_said, .warnings = true, .lookups = true};
	struct agent_config cfg;
	int ret = agent_config_load(o->config, o->run_dir, NULL, &cfg, &r);

	if (!ret && r.errors) {
		/* only files of the run folder had errors: the agent would
		 * leave them out, a check says no all the same */
		agent_config_free(&cfg);
		return EXIT_USER;
	}
	if (ret)
		return agent_exit_code(ret);
	if (cfg.pve_dir)
		agent_pve_check_dir(cfg.pve_dir, &r);
	if (cli.json)
		check_json(&cfg);
	else
		check_text(&cfg);
	agent_config_free(&cfg);
	return EXIT_OK;
}

/* TAP_ACCEL_AGENT_RCVBUF=BYTES: the rtnetlink receive buffer, small in the
 * tests that make it overrun. */
static int rcvbuf_from_env(void)
{
	const char *v = getenv("TAP_ACCEL_AGENT_RCVBUF");

	return v ? atoi(v) : 0;
}

static int run_agent(const void *opts, int argc, char **argv)
{
	const struct agent_cli *o = opts;
	struct agent_opts ao = {o->config, o->run_dir, rcvbuf_from_env()};
	int ret;

	(void)argc;
	(void)argv;
	if (o->check)
		return run_check(o);
	ret = require_admin("agent");
	return ret ?: agent_exit_code(agent_run(&ao));
}

const struct command agent_cmd = {
	.name = "agent",
	.summary = "bind every tap its configuration matches, as taps come and go",
	.help = "Run in the foreground (as the service tap-accel.service), logging to stderr\n"
		"one line per event: watch the taps of this network namespace and of the\n"
		"namespaces agent.conf names (rtnetlink), bind each one a binding of the\n"
		"configuration matches to its policy and guard, unbind those that go. SIGHUP\n"
		"reads the configuration again (one with an error is not applied: the last\n"
		"good one stays); files in the run folder apply as they come. SIGTERM and\n"
		"SIGINT stop it; the taps stay bound. docs/agent.md says it all.\n",
	.options = agent_options,
	.opts_size = sizeof(struct agent_cli),
	.defaults = &agent_defaults,
	.min_args = 0,
	.max_args = 0,
	.run = run_agent,
};
