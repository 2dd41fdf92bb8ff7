// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * goals.c - a table's goals and CSV figures (goals.h).
 */
#include <math.h>

#include "goals.h"

void bench_goals_print(FILE *out, const char *title, const char *const *text,
		       const struct bench_goal *g, int n, int width)
{
	fprintf(out, "\n%s\n", title);
	for (int i = 0; i < n; i++)
		fprintf(out, "  %-*s %-40s %s\n", width, text[i],
			g[i].measured ? g[i].value : "-",
			!g[i].measured ? "not measured"
			: g[i].met     ? "met"
				       : "not met");
}

void bench_goals_json(struct json_writer *w, const char *const *text,
		      const struct bench_goal *g, int n)
{
	jw_key(w, "goals");
	jw_array_begin(w);
	for (int i = 0; i < n; i++) {
		jw_object_begin(w);
		jw_kv_string(w, "goal", text[i]);
		jw_key(w, "met");
		if (g[i].measured)
			jw_bool(w, g[i].met);
		else
			jw_null(w);
		jw_kv_string(w, "measured", g[i].value);
		jw_object_end(w);
	}
	jw_array_end(w);
}

void bench_csv_num(FILE *out, double v)
{
	if (isnan(v) || isinf(v))
		fputc(',', out);
	else
		fprintf(out, ",%.6g", v);
}
