// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* lex.c - words, lines and located errors of tap-accel's text files (lex.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lex.h"

void ta_lex_init(struct ta_lex *lx, const char *text, size_t len, const char *file,
		 struct ta_error *e)
{
	memset(lx, 0, sizeof(*lx));
	lx->file = file;
	lx->next = text;
	lx->end = text + len;
	lx->e = e;
}

int ta_lex_line(struct ta_lex *lx)
{
	const char *nl, *nul;

	if (lx->next >= lx->end)
		return 0;
	nl = memchr(lx->next, '\n', lx->end - lx->next);
	lx->line++;
	lx->line_start = lx->cur = lx->next;
	lx->line_end = nl ? nl : lx->end;
	lx->next = nl ? nl + 1 : lx->end;
	nul = memchr(lx->line_start, '\0', lx->line_end - lx->line_start);
	if (nul)
		return ta_lex_fail(lx, (int)(nul - lx->line_start) + 1,
				   "expected text, got a NUL byte");
	return 1;
}

int ta_lex_fail(struct ta_lex *lx, int col, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ta_error_at(lx->e, EXIT_USER, "%s:%d:%d: %s", lx->file, lx->line, col, msg);
	return -EINVAL;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

bool ta_lex_word(struct ta_lex *lx, struct ta_word *w)
{
	while (lx->cur < lx->line_end && is_blank(*lx->cur))
		lx->cur++;
	w->col = (int)(lx->cur - lx->line_start) + 1;
	w->s = lx->cur;
	if (lx->cur == lx->line_end || *lx->cur == '#') {
		w->len = 0;
		return false;
	}
	while (lx->cur < lx->line_end && !is_blank(*lx->cur) && *lx->cur != '#')
		lx->cur++;
	w->len = (int)(lx->cur - w->s);
	return true;
}

bool ta_word_is(const struct ta_word *w, const char *s)
{
	return (size_t)w->len == strlen(s) && !memcmp(w->s, s, w->len);
}

const char *ta_word_str(const struct ta_word *w, char *buf, size_t size)
{
	size_t n = (size_t)w->len < size - 1 ? (size_t)w->len : size - 1;

	memcpy(buf, w->s, n);
	buf[n] = '\0';
	return buf;
}

const char *ta_word_got(const struct ta_word *w, char *buf, size_t size)
{
	char word[64];

	if (!w->len)
		snprintf(buf, size, "got end of line");
	else
		snprintf(buf, size, "got '%s'", ta_word_str(w, word, sizeof(word)));
	return buf;
}

int ta_lex_expect(struct ta_lex *lx, struct ta_word *w, const char *what,
		  const struct ta_word *keyword)
{
	char kw[32], got[96];

	if (ta_lex_word(lx, w))
		return 0;
	return ta_lex_fail(lx, w->col, "expected %s after '%s', %s", what,
			   ta_word_str(keyword, kw, sizeof(kw)), ta_word_got(w, got, sizeof(got)));
}

int ta_lex_line_end(struct ta_lex *lx)
{
	struct ta_word w;
	char got[96];

	if (!ta_lex_word(lx, &w))
		return 0;
	return ta_lex_fail(lx, w.col, "expected end of line, %s", ta_word_got(&w, got, sizeof(got)));
}

int ta_text_read(const char *path, const char *what, size_t max, char **text, size_t *len,
		 struct ta_error *e)
{
	struct stat st;
	ssize_t n;
	int fd, err;

	*text = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = errno;
		if (fd >= 0)
			close(fd);
		return ta_error_at(e, err == ENOENT || err == EISDIR ? EXIT_USER : EXIT_SYSTEM,
				   "%s: cannot read the %s: %s", path, what, strerror(err));
	}
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
		close(fd);
		return ta_error_at(e, EXIT_USER, "%s: expected a regular %s of at most %zu bytes",
				   path, what, max);
	}
	*text = malloc(st.st_size + 1);
	if (!*text) {
		close(fd);
		return ta_error_set(e, EXIT_SYSTEM, "out of memory");
	}
	n = read(fd, *text, st.st_size);
	err = n < 0 ? errno : 0;
	close(fd);
	if (err) {
		free(*text);
		*text = NULL;
		return ta_error_at(e, EXIT_SYSTEM, "%s: cannot read the %s: %s", path, what,
				   strerror(err));
	}
	(*text)[n] = '\0';
	*len = n;
	return EXIT_OK;
}
