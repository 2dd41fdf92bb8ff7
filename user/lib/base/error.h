/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * error.h - how the library says what went wrong, for the CLI to print:
 * an exit class (the input was wrong, or the system refused or failed)
 * and a message that names the cause and the fix.
 */
#ifndef TA_ERROR_H
#define TA_ERROR_H

#include <stdbool.h>

/* Exit codes: the input was wrong (fix the command or the file) or the
 * system refused or failed (privileges, kernel support, bpffs). */
#define EXIT_OK 0
#define EXIT_USER 1
#define EXIT_SYSTEM 2

struct ta_error {
	int code;     /* EXIT_USER or EXIT_SYSTEM */
	bool located; /* text starts with where: "FILE:LINE:COL: ..." */
	char text[1024];
};

/* Fill `e` and return `code`. */
int ta_error_set(struct ta_error *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same for a message that starts with its place in a file. */
int ta_error_at(struct ta_error *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An errno from the kernel (either sign): EXIT_SYSTEM, "MSG: strerror",
 * and for EPERM/EACCES what privileges tap-accel needs. */
int ta_error_errno(struct ta_error *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* TA_ERROR_H */
