// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* error.c - error messages with their errno and whose fault (see error.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

static int error_fill(struct ta_error *e, int err, bool input, bool located, const char *fmt,
		      va_list ap)
{
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	e->err = err < 0 ? -err : err;
	e->input = input;
	e->located = located;
	return -e->err;
}

#define ERROR_FILL(e, err, input, located, fmt)                             \
	({                                                                  \
		va_list ap;                                                 \
		int ret;                                                    \
                                                                            \
		va_start(ap, fmt);                                          \
		ret = error_fill(e, err, input, located, fmt, ap);          \
		va_end(ap);                                                 \
		ret;                                                        \
	})

int ta_error_input(struct ta_error *e, int err, const char *fmt, ...)
{
	return ERROR_FILL(e, err, true, false, fmt);
}

int ta_error_input_at(struct ta_error *e, int err, const char *fmt, ...)
{
	return ERROR_FILL(e, err, true, true, fmt);
}

int ta_error_system(struct ta_error *e, int err, const char *fmt, ...)
{
	return ERROR_FILL(e, err, false, false, fmt);
}

int ta_error_system_at(struct ta_error *e, int err, const char *fmt, ...)
{
	return ERROR_FILL(e, err, false, true, fmt);
}

int ta_error_errno(struct ta_error *e, int err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err = err < 0 ? -err : err;
	if (err == EPERM || err == EACCES)
		return ta_error_system(e, err,
				       "%s: %s; run tap-accel as root (it needs CAP_NET_ADMIN, CAP_BPF and CAP_SYS_ADMIN)",
				       msg, strerror(err));
	return ta_error_system(e, err, "%s: %s", msg, strerror(err));
}
