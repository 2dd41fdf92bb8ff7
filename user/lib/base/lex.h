/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * lex.h - the lexical rules every text file of tap-accel shares: policy
 * files (policy/parse.c) and the agent's configuration (user/agent/). One
 * statement per line, words separated by blanks (space, tab, CR), '#' to
 * the end of the line a comment; every error starts "FILE:LINE:COL: " and
 * says what was expected and what was found.
 */
#ifndef TA_LEX_H
#define TA_LEX_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

struct ta_word {
	const char *s;
	int len;
	int col; /* 1-based */
};

struct ta_lex {
	const char *file; /* names the source in messages */
	const char *next, *end; /* the text not read yet */
	const char *line_start, *cur, *line_end;
	int line; /* 1-based, of the line being read */
	struct ta_error *e;
};

void ta_lex_init(struct ta_lex *lx, const char *text, size_t len, const char *file,
		 struct ta_error *e);
/* Go to the next line: 1, 0 at the end of the text, or -EINVAL (with the
 * error) for a line holding a NUL byte. */
int ta_lex_line(struct ta_lex *lx);
/* The next word of the line; false at its end or at a comment (w->col is
 * then where the line ends, for messages). */
bool ta_lex_word(struct ta_lex *lx, struct ta_word *w);

bool ta_word_is(const struct ta_word *w, const char *s);
/* A word as a C string, cut to fit `buf`. */
const char *ta_word_str(const struct ta_word *w, char *buf, size_t size);
/* "got 'WORD'" or "got end of line", for messages. */
const char *ta_word_got(const struct ta_word *w, char *buf, size_t size);

/* Set the error "FILE:LINE:COL: MESSAGE" (the input's fault); returns
 * -EINVAL. */
int ta_lex_fail(struct ta_lex *lx, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The word after `keyword`, or the error "expected WHAT after 'KEYWORD'".
 * 0 or -EINVAL. */
int ta_lex_expect(struct ta_lex *lx, struct ta_word *w, const char *what,
		  const struct ta_word *keyword);
/* The line must end here: 0, or -EINVAL with "expected end of line". */
int ta_lex_line_end(struct ta_lex *lx);

/*
 * Read a whole text file of at most `max` bytes; `what` names it in
 * messages ("policy file"). *text is NUL-terminated and the caller's to
 * free. 0, or -errno with "PATH: ..." in `e`.
 */
int ta_text_read(const char *path, const char *what, size_t max, char **text, size_t *len,
		 struct ta_error *e);
/* The same from a file its caller opened and fstat()ed (st): refused
 * unless regular. The caller closes fd. */
struct stat;
int ta_text_read_fd(int fd, const struct stat *st, const char *path, const char *what,
		    size_t max, char **text, size_t *len, struct ta_error *e);

/*
 * `in` with every control byte (below 0x20, and 0x7f) written as \xNN, into
 * `out` (at most size - 1 bytes, NUL-terminated, cut at a whole escape):
 * text from files and file names then cannot move a terminal's cursor or
 * forge a line of a log. Returns out.
 */
char *ta_escape_controls(const char *in, char *out, size_t size);

#endif /* TA_LEX_H */
