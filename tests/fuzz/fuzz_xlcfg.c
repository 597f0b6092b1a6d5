/*
 * fuzz_xlcfg.c - the xl config text scanner and editor of `xvbd pv`
 * (xlcfg_edit.c): a user's config file, scanned the way libxlutil lexes
 * it, one setting replaced or appended, the edited text and its diff;
 * and the kernel command line word edits.  Input: config text, '\x01',
 * a key, '\x01', a string value.
 *
 * Properties: an edit of text the scanner accepts gives text it accepts
 * again, where the key now reads back as the value; the diff of an edit
 * is built; a word added to a command line is there, removed is not.
 */
#include <stdbool.h>
#include <stdio.h>

#include "fuzz.h"
#include "xvbd/xen/xlcfg_edit.h"

/* A key as xvbd's callers pass them: an IDENT of libxlutil's lexer. */
static bool ident(const char *key)
{
	return key[0] >= 'a' && key[0] <= 'z' &&
	       strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789._") ==
	       strlen(key);
}

/* Apply edits to scan's text: the result scans, and key reads back. */
static void check_edit(const struct xvbd_xlcfg_scan *scan,
		       struct xvbd_xlcfg_edits *edits, const char *key,
		       const char *want)
{
	struct xvbd_xlcfg_scan again;
	char *out = NULL, *diff = NULL, *got = NULL, why[256];
	size_t out_len = 0;

	FUZZ_ASSERT(!xvbd_xlcfg_apply(scan->text, scan->len, edits, &out,
				      &out_len));
	FUZZ_ASSERT(strlen(out) == out_len);
	FUZZ_ASSERT(!xvbd_xlcfg_diff("cfg", scan->text, scan->len, edits,
				     &diff));
	FUZZ_ASSERT(!xvbd_xlcfg_scan(out, out_len, &again, why, sizeof(why)));
	FUZZ_ASSERT(xvbd_xlcfg_count(&again, key, &(size_t){ 0 }) >= 1);
	if (want) {
		FUZZ_ASSERT(!xvbd_xlcfg_get_plain_string(&again, key, &got,
							 why, sizeof(why)));
		FUZZ_ASSERT(got && !strcmp(got, want));
	}
	free(got);
	xvbd_xlcfg_scan_free(&again);
	free(diff);
	free(out);
}

static void edit(const char *text, size_t len, const char *key,
		 const char *value)
{
	struct xvbd_xlcfg_edits edits = { 0 };
	struct xvbd_xlcfg_scan scan;
	char why[256], *v = NULL, **names = NULL;
	size_t n = 0, i;

	if (xvbd_xlcfg_scan(text, len, &scan, why, sizeof(why)))
		return;
	if (!xvbd_xlcfg_names(&scan, &names, &n)) {
		for (i = 0; i < n; i++)
			free(names[i]);
		free(names);
	}
	if (!xvbd_xlcfg_get_plain_string(&scan, key, &v, why, sizeof(why)))
		free(v);
	if (!xvbd_xlcfg_plan_atom(&scan, key, "1", &edits, why, sizeof(why)))
		check_edit(&scan, &edits, key, NULL);
	xvbd_xlcfg_edits_free(&edits);
	memset(&edits, 0, sizeof(edits));
	if (!xvbd_xlcfg_plan_string(&scan, key, value, &edits, why,
				    sizeof(why)))
		check_edit(&scan, &edits, key, value);
	xvbd_xlcfg_edits_free(&edits);
	xvbd_xlcfg_scan_free(&scan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	size_t pos = 0;
	char *text = fuzz_field(data, len, &pos);
	char *key = fuzz_field(data, len, &pos);
	char *value = fuzz_field(data, len, &pos);
	char *added, *removed;

	if (ident(key))
		edit(text, strlen(text), key, value);
	/* The value as a command line, the key as a word of it. */
	if (*key && !strpbrk(key, " \t")) {
		added = xvbd_kcmdline_add(value, key);
		FUZZ_ASSERT(added && xvbd_kcmdline_has(added, key));
		removed = xvbd_kcmdline_remove(added, key);
		FUZZ_ASSERT(removed && !xvbd_kcmdline_has(removed, key));
		free(removed);
		free(added);
	}
	free(text);
	free(key);
	free(value);
	return 0;
}
