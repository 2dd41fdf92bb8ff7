// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * nwfilter_load.c - read the filters of a translation and follow their
 * <filterref>s, as libvirt instantiates them for one interface: every
 * rule goes to the chain of the filter that holds it; the root chain
 * jumps to each other chain at that chain's priority; each chain's rules
 * run in the order of their priorities (500 when not given), ties in the
 * order the references met them.
 */
#include <errno.h>
#include <fcntl.h>
#include <libxml/parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nwfilter_load.h"

#define MAX_FILES 256
#define MAX_RULES 4096

/* libvirt's default priority of each chain family (formatnwfilter). */
static const struct {
	const char *family;
	int prio;
} chain_prios[] = {
	{ "root", 0 },	   { "stp", -810 },  { "mac", -800 },  { "vlan", -750 },
	{ "ipv4", -700 }, { "ipv6", -600 }, { "arp", -500 },  { "rarp", -400 },
};

const char *nwf_chain_family(const char *chain)
{
	for (size_t i = 0; i < sizeof(chain_prios) / sizeof(chain_prios[0]); i++) {
		size_t n = strlen(chain_prios[i].family);

		if (!strncmp(chain, chain_prios[i].family, n) && (!chain[n] || chain[n] == '-'))
			return chain_prios[i].family;
	}
	return NULL;
}

static int family_prio(const char *family)
{
	for (size_t i = 0; i < sizeof(chain_prios) / sizeof(chain_prios[0]); i++)
		if (!strcmp(family, chain_prios[i].family))
			return chain_prios[i].prio;
	return 0;
}

const char *nwf_where(const struct nwf_file *f, xmlNodePtr node, char *buf, size_t size)
{
	snprintf(buf, size, "%s:%ld", f->path, node ? xmlGetLineNo(node) : 0L);
	return buf;
}

const char *nwf_attr(xmlNodePtr node, const char *name, char *buf, size_t size)
{
	xmlChar *v = xmlGetProp(node, (const xmlChar *)name);

	if (!v)
		return NULL;
	snprintf(buf, size, "%s", (const char *)v);
	xmlFree(v);
	return buf;
}

static bool is_element(xmlNodePtr n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && (!name || !strcmp((const char *)n->name, name));
}

/* ---- reading one file ------------------------------------------------------ */

static int read_all(const char *path, char **text, size_t *len, struct ta_error *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 0, n = 0;
	char *buf = NULL;

	if (fd < 0)
		return ta_error_input(e, errno, "%s: cannot read it: %s", path, strerror(errno));
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *p;

			cap = cap ? cap * 2 : 16384;
			p = realloc(buf, cap + 1);
			if (!p) {
				free(buf);
				close(fd);
				return ta_error_errno(e, ENOMEM, "%s", path);
			}
			buf = p;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			int err = errno;

			free(buf);
			close(fd);
			return ta_error_input(e, err, "%s: cannot read it: %s", path, strerror(err));
		}
		if (!r)
			break;
		n += r;
		if (n > TA_NWF_MAX_FILE) {
			free(buf);
			close(fd);
			return ta_error_input(e, EFBIG,
					      "%s: larger than %d KiB, which no nwfilter filter is",
					      path, TA_NWF_MAX_FILE >> 10);
		}
	}
	close(fd);
	*text = buf;
	*len = n;
	return 0;
}

/* Parse without the network, without loading or applying a DTD and
 * without substituting entities: a filter is plain elements. */
static int parse_xml(const char *path, const char *text, size_t len, xmlDocPtr *out,
		     struct ta_error *e)
{
	int opts = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA;
	xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
	xmlDocPtr doc;

	if (!ctxt)
		return ta_error_errno(e, ENOMEM, "%s", path);
	doc = xmlCtxtReadMemory(ctxt, text, (int)len, path, NULL, opts);
	if (!doc) {
		const xmlError *x = xmlCtxtGetLastError(ctxt);
		char msg[256] = "not XML";
		int line = x ? x->line : 0;

		if (x && x->message) {
			snprintf(msg, sizeof(msg), "%s", x->message);
			msg[strcspn(msg, "\n")] = 0;
		}
		xmlFreeParserCtxt(ctxt);
		return ta_error_input_at(e, EINVAL, "%s:%d: malformed XML: %s", path, line, msg);
	}
	xmlFreeParserCtxt(ctxt);
	if (doc->intSubset || doc->extSubset) {
		xmlFreeDoc(doc);
		return ta_error_input_at(e, EINVAL,
					 "%s:1: a <!DOCTYPE> (entities, a DTD) is not read: nwfilter "
					 "XML has none; remove it",
					 path);
	}
	*out = doc;
	return 0;
}

static int add_file(struct nwf_load *ld, const char *path, struct nwf_file **out,
		    struct ta_error *e)
{
	struct nwf_file *f;
	xmlNodePtr root;
	char *text = NULL, name[256], chain[64], prio[32];
	size_t len = 0;
	int ret;

	if (ld->nr_files == MAX_FILES)
		return ta_error_input(e, E2BIG, "%s: more than %d filters in one translation", path,
				      MAX_FILES);
	ret = read_all(path, &text, &len, e);
	if (ret)
		return ret;
	f = &ld->files[ld->nr_files];
	memset(f, 0, sizeof(*f));
	ret = parse_xml(path, text, len, &f->doc, e);
	free(text);
	if (ret)
		return ret;
	f->path = strdup(path);
	ld->nr_files++;
	root = xmlDocGetRootElement(f->doc);
	if (!root || !is_element(root, "filter"))
		return ta_error_input_at(e, EINVAL, "%s:%ld: <%s> is not an nwfilter <filter>",
					 path, root ? xmlGetLineNo(root) : 0L,
					 root ? (const char *)root->name : "");
	if (!nwf_attr(root, "name", name, sizeof(name)) || !*name)
		return ta_error_input_at(e, EINVAL, "%s:%ld: <filter> has no name=''", path,
					 xmlGetLineNo(root));
	if (!nwf_attr(root, "chain", chain, sizeof(chain)))
		strcpy(chain, "root");
	if (!nwf_chain_family(chain))
		return ta_error_input_at(e, EINVAL,
					 "%s:%ld: <filter chain='%s'>: not a chain of libvirt's "
					 "(root, mac, stp, vlan, arp, rarp, ipv4, ipv6, or one of "
					 "these with a -suffix)",
					 path, xmlGetLineNo(root), chain);
	f->name = strdup(name);
	f->chain = strdup(chain);
	f->prio = family_prio(nwf_chain_family(chain));
	if (nwf_attr(root, "priority", prio, sizeof(prio))) {
		char *end;
		long p = strtol(prio, &end, 10);

		if (*end || end == prio || p < -1000 || p > 1000)
			return ta_error_input_at(e, EINVAL,
						 "%s:%ld: <filter priority='%s'>: expected -1000..1000",
						 path, xmlGetLineNo(root), prio);
		f->prio = (int)p;
	}
	if (!f->path || !f->name || !f->chain)
		return ta_error_errno(e, ENOMEM, "%s", path);
	*out = f;
	return 0;
}

/* The filter called `name`: one of the files given, else NAME.xml in the
 * first folder of DIR[:DIR...] that has it. */
static int find_filter(struct nwf_load *ld, const struct ta_nwf_input *in, const char *name,
		       const char *where, struct nwf_file **out, struct ta_error *e)
{
	char path[4096] = "";
	struct nwf_file *f;
	const char *d;
	int ret;

	for (size_t i = 0; i < ld->nr_files; i++)
		if (!strcmp(ld->files[i].name, name)) {
			*out = &ld->files[i];
			return 0;
		}
	if (!in->dir || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return ta_error_input_at(e, ENOENT,
					 "%s: <filterref filter='%s'>: no such filter (give its "
					 "file too, or --dir)",
					 where, name);
	for (d = in->dir; *d;) {
		size_t n = strcspn(d, ":");

		snprintf(path, sizeof(path), "%.*s/%s.xml", (int)n, d, name);
		if (!access(path, F_OK))
			break;
		*path = 0;
		d += n + (d[n] == ':');
	}
	if (!*path)
		return ta_error_input_at(e, ENOENT,
					 "%s: <filterref filter='%s'>: no such filter: no %s.xml "
					 "in %s",
					 where, name, name, in->dir);
	ret = add_file(ld, path, &f, e);
	if (ret)
		return ret;
	if (strcmp(f->name, name))
		return ta_error_input_at(e, EINVAL, "%s: its filter is named '%s', not '%s'", path,
					 f->name, name);
	*out = f;
	return 0;
}

/* ---- following the references ----------------------------------------------- */

static struct nwf_chain *chain_of(struct nwf_load *ld, const struct nwf_file *f)
{
	struct nwf_chain *c;

	for (size_t i = 0; i < ld->nr_chains; i++)
		if (!strcmp(ld->chains[i].name, f->chain))
			return &ld->chains[i];
	c = &ld->chains[ld->nr_chains];
	memset(c, 0, sizeof(*c));
	c->name = strdup(f->chain);
	c->prio = f->prio;
	c->file = f;
	c->seq = ld->seq++;
	c->rules = calloc(MAX_RULES, sizeof(*c->rules));
	if (!c->name || !c->rules)
		return NULL;
	ld->nr_chains++;
	return c;
}

static int add_rule(struct nwf_load *ld, const struct nwf_file *f, xmlNodePtr node,
		    const struct nwf_scope *scope, struct ta_error *e)
{
	struct nwf_chain *c = chain_of(ld, f);
	char buf[32], where[4200];
	int prio = 500;

	if (!c)
		return ta_error_errno(e, ENOMEM, "%s", f->path);
	if (nwf_attr(node, "priority", buf, sizeof(buf))) {
		char *end;
		long p = strtol(buf, &end, 10);

		if (*end || end == buf || p < -1000 || p > 1000)
			return ta_error_input_at(e, EINVAL,
						 "%s: <rule priority='%s'>: expected -1000..1000",
						 nwf_where(f, node, where, sizeof(where)), buf);
		prio = (int)p;
	}
	if (c->nr_rules == MAX_RULES)
		return ta_error_input_at(e, E2BIG, "%s: more than %d rules in chain %s",
					 nwf_where(f, node, where, sizeof(where)), MAX_RULES,
					 c->name);
	c->rules[c->nr_rules++] = (struct nwf_rule){
		.node = node, .file = f, .scope = scope, .prio = prio, .seq = ld->seq++
	};
	return 0;
}

/* Keep an attribute's copy until nwf_load_free(), or free it now. */
static int keep(struct nwf_load *ld, xmlChar *s)
{
	xmlChar **p = realloc(ld->owned, (ld->nr_owned + 1) * sizeof(*p));

	if (!p) {
		xmlFree(s);
		return -ENOMEM;
	}
	ld->owned = p;
	ld->owned[ld->nr_owned++] = s;
	return 0;
}

/* The parameters of a <filterref> over those it inherits. */
static int scope_of(struct nwf_load *ld, const struct nwf_scope *up, const struct nwf_file *f,
		    xmlNodePtr ref, const struct nwf_scope **out, struct ta_error *e)
{
	struct nwf_scope *s = malloc(sizeof(*s));
	struct nwf_scope **p;
	char where[4200];
	bool own[32] = { false };

	if (!s)
		return ta_error_errno(e, ENOMEM, "%s", f->path);
	*s = *up;
	p = realloc(ld->scopes, (ld->nr_scopes + 1) * sizeof(*p));
	if (!p) {
		free(s);
		return ta_error_errno(e, ENOMEM, "%s", f->path);
	}
	ld->scopes = p;
	ld->scopes[ld->nr_scopes++] = s;
	for (xmlNodePtr n = ref->children; n; n = n->next) {
		xmlChar *name, *value;
		size_t i;

		if (!is_element(n, "parameter"))
			continue;
		name = xmlGetProp(n, (const xmlChar *)"name");
		value = xmlGetProp(n, (const xmlChar *)"value");
		if (!name || !value) {
			xmlFree(name);
			xmlFree(value);
			return ta_error_input_at(e, EINVAL,
						 "%s: <parameter> needs name='' and value=''",
						 nwf_where(f, n, where, sizeof(where)));
		}
		if (keep(ld, name) || keep(ld, value))
			return ta_error_errno(e, ENOMEM, "%s", f->path);
		for (i = 0; i < s->n && strcmp(s->v[i].name, (const char *)name); i++)
			;
		if (i == s->n && s->n < 32)
			s->v[s->n++].name = (const char *)name;
		if (i == 32 || (own[i] && s->v[i].nr_values == NWF_MAX_VALUES)) {
			return ta_error_input_at(e, E2BIG, "%s: too many parameters or values",
						 nwf_where(f, n, where, sizeof(where)));
		}
		if (!own[i])
			s->v[i].nr_values = 0; /* the reference's values replace the inherited */
		own[i] = true;
		s->v[i].values[s->v[i].nr_values++] = (const char *)value;
	}
	*out = s;
	return 0;
}

struct walk {
	const char *stack[TA_NWF_MAX_DEPTH + 1];
	int depth;
};

static int walk_filter(struct nwf_load *ld, const struct ta_nwf_input *in, struct nwf_file *f,
		       const struct nwf_scope *scope, struct walk *w, struct ta_error *e)
{
	xmlNodePtr root = xmlDocGetRootElement(f->doc);
	char where[4200], name[256];
	int ret;

	for (xmlNodePtr n = root->children; n; n = n->next) {
		const struct nwf_scope *sub = NULL;
		struct nwf_file *g = NULL;

		if (!is_element(n, NULL))
			continue;
		nwf_where(f, n, where, sizeof(where));
		if (is_element(n, "rule")) {
			ret = add_rule(ld, f, n, scope, e);
		} else if (is_element(n, "filterref")) {
			if (!nwf_attr(n, "filter", name, sizeof(name)) || !*name)
				return ta_error_input_at(e, EINVAL,
							 "%s: <filterref> has no filter=''", where);
			for (int i = 0; i < w->depth; i++)
				if (!strcmp(w->stack[i], name))
					return ta_error_input_at(e, ELOOP,
								 "%s: <filterref filter='%s'>: "
								 "a loop: %s references itself",
								 where, name, name);
			if (w->depth == TA_NWF_MAX_DEPTH)
				return ta_error_input_at(e, ELOOP,
							 "%s: <filterref filter='%s'>: more "
							 "than %d filters deep",
							 where, name, TA_NWF_MAX_DEPTH);
			ret = find_filter(ld, in, name, where, &g, e);
			if (!ret)
				ret = scope_of(ld, scope, f, n, &sub, e);
			if (!ret) {
				w->stack[w->depth++] = g->name;
				ret = walk_filter(ld, in, g, sub, w, e);
				w->depth--;
			}
		} else if (is_element(n, "uuid")) {
			ret = 0;
		} else {
			return ta_error_input_at(e, EINVAL,
						 "%s: <%s> in <filter>: expected <rule>, "
						 "<filterref> or <uuid>",
						 where, (const char *)n->name);
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int by_prio(const void *a, const void *b)
{
	const struct nwf_rule *x = a, *y = b;

	if (x->prio != y->prio)
		return x->prio < y->prio ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int nwf_load(const struct ta_nwf_input *in, struct nwf_load *ld, struct ta_import *im,
	     struct ta_error *e)
{
	struct nwf_scope *top;
	struct nwf_file *f;
	struct walk w = { .depth = 0 };
	int ret;

	memset(ld, 0, sizeof(*ld));
	ld->files = calloc(MAX_FILES, sizeof(*ld->files));
	ld->chains = calloc(MAX_FILES + 1, sizeof(*ld->chains));
	ld->scopes = calloc(1, sizeof(*ld->scopes));
	top = calloc(1, sizeof(*top));
	if (!ld->files || !ld->chains || !ld->scopes || !top) {
		free(top);
		return ta_error_errno(e, ENOMEM, "nwfilter");
	}
	ld->scopes[ld->nr_scopes++] = top;
	for (size_t i = 0; i < in->nr_params; i++) {
		size_t j;

		for (j = 0; j < top->n && strcmp(top->v[j].name, in->params[i].name); j++)
			;
		if (j == 32 || (j < top->n && top->v[j].nr_values == NWF_MAX_VALUES))
			return ta_error_input(e, E2BIG, "too many parameters or values");
		if (j == top->n)
			top->v[top->n++].name = in->params[i].name;
		top->v[j].values[top->v[j].nr_values++] = in->params[i].value;
	}
	for (size_t i = 0; i < in->nr_files; i++) {
		ret = add_file(ld, in->files[i], &f, e);
		if (ret)
			return ret;
		for (size_t j = 0; j + 1 < ld->nr_files; j++)
			if (!strcmp(ld->files[j].name, f->name))
				return ta_error_input(e, EINVAL, "%s and %s both define filter '%s'",
						      ld->files[j].path, f->path, f->name);
	}
	/* root first, whatever the chain of the filter translated */
	ld->chains[0].name = strdup("root");
	ld->chains[0].rules = calloc(MAX_RULES, sizeof(struct nwf_rule));
	if (!ld->chains[0].name || !ld->chains[0].rules)
		return ta_error_errno(e, ENOMEM, "nwfilter");
	ld->chains[0].file = &ld->files[0];
	ld->nr_chains = 1;
	w.stack[w.depth++] = ld->files[0].name;
	ret = walk_filter(ld, in, &ld->files[0], top, &w, e);
	if (ret)
		return ret;
	for (size_t i = 0; i < ld->nr_chains; i++)
		qsort(ld->chains[i].rules, ld->chains[i].nr_rules, sizeof(struct nwf_rule), by_prio);
	(void)im;
	return 0;
}

void nwf_load_free(struct nwf_load *ld)
{
	for (size_t i = 0; i < ld->nr_files; i++) {
		xmlFreeDoc(ld->files[i].doc);
		free(ld->files[i].path);
		free(ld->files[i].name);
		free(ld->files[i].chain);
	}
	for (size_t i = 0; i < ld->nr_chains; i++) {
		free(ld->chains[i].name);
		free(ld->chains[i].rules);
	}
	for (size_t i = 0; i < ld->nr_owned; i++)
		xmlFree(ld->owned[i]);
	free(ld->owned);
	for (size_t i = 0; i < ld->nr_scopes; i++)
		free(ld->scopes[i]);
	free(ld->scopes);
	free(ld->files);
	free(ld->chains);
	memset(ld, 0, sizeof(*ld));
}
