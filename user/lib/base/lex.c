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
	ta_error_input_at(lx->e, EINVAL, "%s:%d:%d: %s", lx->file, lx->line, col, msg);
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

char *ta_escape_controls(const char *in, char *out, size_t size)
{
	size_t n = 0;

	for (; *in && n + 1 < size; in++) {
		unsigned char c = (unsigned char)*in;

		if (c >= 0x20 && c != 0x7f) {
			out[n++] = (char)c;
			continue;
		}
		if (n + 5 > size)
			break;
		n += snprintf(out + n, size - n, "\\x%02x", c);
	}
	if (size)
		out[n] = '\0';
	return out;
}

const char *ta_word_got(const struct ta_word *w, char *buf, size_t size)
{
	char word[64], shown[64];

	if (!w->len)
		snprintf(buf, size, "got end of line");
	else
		snprintf(buf, size, "got '%s'",
			 ta_escape_controls(ta_word_str(w, word, sizeof(word)), shown, sizeof(shown)));
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

/* What kind of file a mode is, for "expected a regular file, not ...". */
static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode) ? "a folder" : S_ISFIFO(mode) ? "a FIFO" : S_ISSOCK(mode) ? "a socket"
	       : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device"
	       : S_ISLNK(mode) ? "a symbolic link" : "not a regular file";
}

int ta_text_read_fd(int fd, const struct stat *st, const char *path, const char *what,
		    size_t max, char **text, size_t *len, struct ta_error *e)
{
	ssize_t n;
	int err;

	*text = NULL;
	*len = 0;
	if (!S_ISREG(st->st_mode))
		return ta_error_input_at(e, EINVAL, "%s: expected a regular %s, found %s", path, what,
					 file_kind(st->st_mode));
	if ((size_t)st->st_size > max)
		return ta_error_input_at(e, EFBIG, "%s: expected a regular %s of at most %zu bytes",
					 path, what, max);
	*text = malloc(st->st_size + 1);
	if (!*text)
		return ta_error_system(e, ENOMEM, "out of memory");
	n = read(fd, *text, st->st_size);
	err = n < 0 ? errno : 0;
	if (err) {
		free(*text);
		*text = NULL;
		return ta_error_system_at(e, err, "%s: cannot read the %s: %s", path, what,
					  strerror(err));
	}
	(*text)[n] = '\0';
	*len = n;
	return 0;
}

int ta_text_read(const char *path, const char *what, size_t max, char **text, size_t *len,
		 struct ta_error *e)
{
	struct stat st;
	int fd, err, ret;

	*text = NULL;
	*len = 0;
	/* O_NONBLOCK: a FIFO (or a device) where a file was expected must
	 * not hang its reader in open(); it is refused below */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = errno;
		if (fd >= 0)
			close(fd);
		/* not there, or a folder: the path given is wrong */
		if (err == ENOENT || err == EISDIR)
			return ta_error_input_at(e, err, "%s: cannot read the %s: %s", path, what,
						 strerror(err));
		return ta_error_system_at(e, err, "%s: cannot read the %s: %s", path, what,
					  strerror(err));
	}
	ret = ta_text_read_fd(fd, &st, path, what, max, text, len, e);
	close(fd);
	return ret;
}
