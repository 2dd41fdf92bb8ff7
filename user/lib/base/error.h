/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * error.h - how the library says what went wrong. A function that can
 * fail returns 0 or -errno and fills a struct ta_error: the errno, whose
 * fault it was (the input: fix the command or the file; or the system:
 * privileges, kernel support, bpffs) and a message that names the cause
 * and the fix. Exit codes are the CLI's (cli/common.h), never the
 * library's.
 */
#ifndef TA_ERROR_H
#define TA_ERROR_H

#include <stdbool.h>

struct ta_error {
	int err;      /* positive errno */
	bool input;   /* the input was wrong; else the system refused or failed */
	bool located; /* text starts with where: "FILE:LINE:COL: ..." */
	char text[1024];
};

/* Fill `e` as the input's fault and return -err. */
int ta_error_input(struct ta_error *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same for a message that starts with its place in a file. */
int ta_error_input_at(struct ta_error *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Fill `e` as the system's fault and return -err. */
int ta_error_system(struct ta_error *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same for a message that starts with its place in a file. */
int ta_error_system_at(struct ta_error *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An errno from the kernel (either sign), the system's fault: "MSG:
 * strerror", and for EPERM/EACCES what privileges tap-accel needs.
 * Returns -errno. */
int ta_error_errno(struct ta_error *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* TA_ERROR_H */
