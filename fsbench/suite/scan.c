/* Suite files: where each JSON path's key and value start, for FILE:LINE:COL errors. */
#include "fsbench/suite/parser.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64 /* deeper nesting than any suite needs is not scanned for positions */

static void pos_add(struct parse *p, const char *path, size_t key_off, size_t val_off)
{
	if (p->npos == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct pos *a = realloc(p->pos, cap * sizeof(*a));

		if (!a)
			return; /* positions are a nicety: a message without one is still right */
		p->pos = a;
		p->cap = cap;
	}
	p->pos[p->npos].path = strdup(path);
	if (!p->pos[p->npos].path)
		return;
	p->pos[p->npos].key_off = key_off;
	p->pos[p->npos].val_off = val_off;
	p->npos++;
}

static void skip_ws(struct parse *p)
{
	while (p->i < p->len && strchr(" \t\r\n", p->text[p->i]))
		p->i++;
}

/* Skips a string starting at its quote; returns its raw contents' length. */
static size_t skip_string(struct parse *p)
{
	size_t start = ++p->i;

	while (p->i < p->len && p->text[p->i] != '"') {
		if (p->text[p->i] == '\\')
			p->i++;
		p->i++;
	}
	p->i++;
	return p->i - 1 - start;
}

void suite_scan_value(struct parse *p, const char *path, size_t key_off)
{
	char child[512];
	size_t val_off;

	skip_ws(p);
	val_off = p->i;
	pos_add(p, path, key_off == SIZE_MAX ? val_off : key_off, val_off);
	if (p->i >= p->len || ++p->depth > MAX_DEPTH)
		return;
	if (p->text[p->i] == '{') {
		p->i++;
		for (;;) {
			size_t koff, klen;

			skip_ws(p);
			if (p->i >= p->len || p->text[p->i] == '}')
				break;
			if (p->text[p->i] == ',') {
				p->i++;
				continue;
			}
			koff = p->i;
			klen = skip_string(p);
			snprintf(child, sizeof(child), "%s%s%.*s", path, *path ? "." : "",
				 (int)klen, p->text + koff + 1);
			skip_ws(p);
			p->i++; /* ':' */
			suite_scan_value(p, child, koff);
		}
		p->i++;
	} else if (p->text[p->i] == '[') {
		int idx = 0;

		p->i++;
		for (;;) {
			skip_ws(p);
			if (p->i >= p->len || p->text[p->i] == ']')
				break;
			if (p->text[p->i] == ',') {
				p->i++;
				continue;
			}
			snprintf(child, sizeof(child), "%s[%d]", path, idx++);
			suite_scan_value(p, child, SIZE_MAX);
		}
		p->i++;
	} else if (p->text[p->i] == '"') {
		skip_string(p);
	} else {
		while (p->i < p->len && !strchr(",]} \t\r\n", p->text[p->i]))
			p->i++;
	}
	p->depth--;
}

static void line_col(const struct parse *p, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < p->len; i++) {
		if (p->text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* "FILE:LINE:COL: PATH: message", pointing at the key (@at_key) or the value of @path. */
int suite_fail_at(struct parse *p, const char *path, bool at_key, const char *fmt, ...)
{
	char msg[512];
	int line = 0, col = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < p->npos; i++)
		if (!strcmp(p->pos[i].path, path)) {
			line_col(p, at_key ? p->pos[i].key_off : p->pos[i].val_off, &line, &col);
			break;
		}
	if (line)
		snprintf(p->err, p->errlen, "%s:%d:%d: %s%s%s", p->file, line, col, path,
			 *path ? ": " : "", msg);
	else
		snprintf(p->err, p->errlen, "%s: %s%s%s", p->file, path, *path ? ": " : "", msg);
	return -EINVAL;
}

void suite_scan_free(struct parse *p)
{
	for (size_t i = 0; i < p->npos; i++)
		free(p->pos[i].path);
	free(p->pos);
	p->pos = NULL;
	p->npos = p->cap = 0;
}
