/*
 * fuzz_frontend.c - xenstore values a guest writes into its frontend
 * directory (ring-ref%u, event-channel, num-queues, protocol,
 * feature-persistent, state ...), beside a backend directory and the
 * backend's error node: the blkif model's key table checks
 * (xvbd_blkif_key_find/_check) and xvbd_blkif_evaluate, which list and
 * show run on every VBD.  Input: "key=value" lines, the frontend's
 * first, then after a '\x01' the backend's, then the error text.
 */
#include "fuzz.h"
#include "xvbd/xen/blkif.h"

static void load(struct xvbd_kvmap *map, enum xvbd_dir dir, char *text)
{
	char *line, *save = NULL, *eq;
	const struct xvbd_blkif_key *row;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		row = xvbd_blkif_key_find(dir, line);
		if (row)
			(void)xvbd_blkif_key_check(row, eq + 1);
		if (xvbd_kvmap_set(map, line, eq + 1))
			abort();
	}
	xvbd_kvmap_sort(map);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct xvbd_kvmap fe = { 0 }, be = { 0 };
	struct xvbd_blkif_input in = { 0 };
	struct xvbd_blkif_eval *ev;
	size_t pos = 0, i;
	char *fe_text, *be_text, *error;

	/* A VBD's directories hold a few dozen keys: longer inputs only
	 * slow the run down (the map is a sorted array). */
	if (len > 2048)
		return 0;
	fe_text = fuzz_field(data, len, &pos);
	be_text = fuzz_field(data, len, &pos);
	error = fuzz_field(data, len, &pos);

	load(&fe, XVBD_DIR_FRONTEND, fe_text);
	load(&be, XVBD_DIR_BACKEND, be_text);
	in.frontend = &fe;
	in.backend = &be;
	in.error_text = *error ? error : NULL;
	in.fe_indirect_limit.known = pos < len;
	in.fe_indirect_limit.v = len;
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		abort();
	xvbd_blkif_evaluate(&in, ev);
	FUZZ_ASSERT(ev->nwarnings <= XVBD_WARN_MAX);
	for (i = 0; i < ev->nwarnings; i++)
		FUZZ_ASSERT(memchr(ev->warnings[i], '\0', XVBD_WARN_LEN));
	free(ev);
	xvbd_kvmap_free(&fe);
	xvbd_kvmap_free(&be);
	free(fe_text);
	free(be_text);
	free(error);
	return 0;
}
