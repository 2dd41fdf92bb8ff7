// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* error.c - error messages with their exit class (see error.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

static int error_fill(struct ta_error *e, int code, bool located, const char *fmt, va_list ap)
{
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	e->code = code;
	e->located = located;
	return code;
}

int ta_error_set(struct ta_error *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = error_fill(e, code, false, fmt, ap);
	va_end(ap);
	return code;
}

int ta_error_at(struct ta_error *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = error_fill(e, code, true, fmt, ap);
	va_end(ap);
	return code;
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
		return ta_error_set(e, EXIT_SYSTEM,
				    "%s: %s; run tap-accel as root (it needs CAP_NET_ADMIN, CAP_BPF and CAP_SYS_ADMIN)",
				    msg, strerror(err));
	return ta_error_set(e, EXIT_SYSTEM, "%s: %s", msg, strerror(err));
}
