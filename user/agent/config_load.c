// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * config_load.c - the agent's configuration read as a whole (config.h):
 * agent.conf and the policies/ (settings.c), then both bindings.d folders
 * (bindings.c), /etc's before the runtime folder's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/bindings.h"
#include "agent/config.h"
#include "agent/config_read.h"
#include "agent/settings.h"
#include "lib/policy/parse.h"

/* The configuration folder must be there, even empty: a --config that
 * names no folder is a mistake, not an empty configuration. */
static int config_dir_check(const char *dir, struct agent_report *r)
{
	struct ta_error e;
	struct stat st;
	int err = stat(dir, &st) ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;

	if (!err && config_owner_check(dir, &st, "a folder", &e)) {
		config_say(r, true, &e);
		return -EINVAL;
	}
	if (!err)
		return 0;
	ta_error_input_at(&e, err, "%s: cannot read the configuration folder: %s; make it "
			  "(mkdir -p %s), even empty", dir, strerror(err), dir);
	config_say(r, true, &e);
	return -EINVAL;
}

static void unbound_warning(const struct agent_config *cfg, struct agent_report *r)
{
	if (cfg->unbound == TA_UNBOUND_POLICY && !agent_config_policy(cfg, cfg->unbound_policy))
		config_warn(r, "%s/agent.conf: no policy %s in %s/policies: it must be loaded by "
			    "hand for unbound taps", cfg->dir, cfg->unbound_policy, cfg->dir);
}

int agent_config_load(const char *dir, const char *run_dir, struct agent_config *prev,
		      struct agent_config *cfg, struct agent_report *r)
{
	char *etc_bindings = config_path(dir, "bindings.d");
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	cfg->dir = strdup(dir);
	cfg->run_dir = run_dir ? strdup(run_dir) : NULL;
	if (!cfg->dir || (run_dir && !cfg->run_dir) || !etc_bindings) {
		free(etc_bindings);
		agent_config_free(cfg);
		return -ENOMEM;
	}
	/* /etc first, all of it: an error there leaves prev as it is (the run
	 * folder is read all the same, to say its errors too) */
	ret = config_dir_check(dir, r);
	if (ret) {
		free(etc_bindings);
		agent_config_free(cfg);
		return ret;
	}
	ret = settings_load(cfg, r);
	ret = policies_load(cfg, r) ?: ret;
	ret = bindings_load(cfg, etc_bindings, &cfg->etc, false, NULL, r) ?: ret;
	free(etc_bindings);
	if (run_dir)
		ret = bindings_load(cfg, run_dir, &cfg->run, true, !ret && prev ? &prev->run : NULL, r)
		      ?: ret;
	if (!ret)
		ret = bindings_order(cfg);
	if (ret) {
		agent_config_free(cfg);
		return ret;
	}
	unbound_warning(cfg, r);
	return 0;
}

int agent_config_reload_run(struct agent_config *cfg, struct agent_report *r)
{
	struct agent_files old = cfg->run;
	int ret;

	memset(&cfg->run, 0, sizeof(cfg->run));
	ret = cfg->run_dir ? bindings_load(cfg, cfg->run_dir, &cfg->run, true, &old, r) : 0;
	if (ret) {
		bindings_free(&cfg->run);
		cfg->run = old;
		return ret;
	}
	bindings_free(&old);
	return bindings_order(cfg);
}

void agent_config_free(struct agent_config *cfg)
{
	for (uint32_t i = 0; i < cfg->nr_policies; i++) {
		ta_policy_spec_free(&cfg->policies[i].spec);
		free(cfg->policies[i].path);
	}
	for (uint32_t i = 0; i < cfg->nr_netns; i++)
		free(cfg->netns[i]);
	bindings_free(&cfg->etc);
	bindings_free(&cfg->run);
	free(cfg->policies);
	free(cfg->netns);
	free(cfg->order);
	free(cfg->metrics.textfile);
	free(cfg->metrics.listen);
	free(cfg->pve_dir);
	free(cfg->dir);
	free(cfg->run_dir);
	memset(cfg, 0, sizeof(*cfg));
}

