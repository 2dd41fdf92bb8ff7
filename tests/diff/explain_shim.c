// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * explain_shim - runs `tap-accel policy explain` (user/cli/explain.c)
 * alone, with the CLI's helpers from main.c linked in, for as long as the
 * verb is not dispatched by `tap-accel policy`: explain_shim ARGS... is
 * tap-accel policy explain ARGS...
 */
int cmd_policy_explain(int argc, char **argv);

int main(int argc, char **argv)
{
	argv[0] = "explain";
	return cmd_policy_explain(argc, argv);
}
