/*
 * ab_record.c - the A/B record: fingerprint facts, labels and ids, the
 * record model and the checks every record passes before it is written
 * and after it is read.
 *
 * Its JSON form is src/ab_json.c; the store (a directory of record
 * files) is src/ab_store.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_lat.h"
#include "xvbd/workload/workload.h"
#include "xvbd/ab/ab_record_impl.h"
#include "xvbd/base/util.h"

#define NS_PER_S		UINT64_C(1000000000)
#define FACT_KEY_MAX		128
#define VDEV_LEN_MAX		15
#define DOMAIN_LEN_MAX		63
/* "-yyyymmddThhmmss-xxxx" after the label */
#define ID_SUFFIX_LEN		21

#define err_set xvbd_ab_err_set

void xvbd_ab_err_set(struct xvbd_ab_err *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

/* ---- printable text ---- */

bool xvbd_ab_printable(const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (i >= max || s[i] < 0x20 || s[i] >= 0x7f)
			return false;
	return true;
}


/* vasprintf, then control and non-ASCII bytes escaped; NULL on ENOMEM. */
static char *format_escaped(const char *fmt, va_list ap)
{
	char *raw, *out;

	if (vasprintf(&raw, fmt, ap) < 0)
		return NULL;
	out = xvbd_escape(raw);
	free(raw);
	return out;
}

/* ---- fingerprint ---- */

/* Dotted lower case: [a-z0-9_-] words joined by single dots. */
bool xvbd_ab_fact_key_valid(const char *key)
{
	size_t i, len = strlen(key);

	if (!len || len > FACT_KEY_MAX || key[0] == '.' || key[len - 1] == '.')
		return false;
	for (i = 0; i < len; i++) {
		char c = key[i];

		if (c == '.') {
			if (key[i + 1] == '.')
				return false;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-'))
			return false;
	}
	return true;
}

/* Index of key, or of where it would be inserted (*found false). */
static size_t fact_find(const struct xvbd_ab_fp *fp, const char *key,
			bool *found)
{
	size_t lo = 0, hi = fp->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(fp->facts[mid].key, key);

		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

/* Takes ownership of value (also on failure). */
static int fact_put(struct xvbd_ab_fp *fp, const char *key, char *value)
{
	size_t i;
	bool found;
	char *key_copy;

	if (!xvbd_ab_fact_key_valid(key) || strlen(value) > XVBD_AB_TEXT_MAX) {
		free(value);
		return -EINVAL;
	}
	i = fact_find(fp, key, &found);
	if (found) {
		free(fp->facts[i].value);
		fp->facts[i].value = value;
		return 0;
	}
	if (fp->n >= XVBD_AB_FACTS_MAX) {
		free(value);
		return -E2BIG;
	}
	if (fp->n == fp->cap) {
		size_t cap = fp->cap ? fp->cap * 2 : 32;
		struct xvbd_ab_fact *facts;

		facts = realloc(fp->facts, cap * sizeof(*facts));
		if (!facts) {
			free(value);
			return -ENOMEM;
		}
		fp->facts = facts;
		fp->cap = cap;
	}
	key_copy = strdup(key);
	if (!key_copy) {
		free(value);
		return -ENOMEM;
	}
	memmove(&fp->facts[i + 1], &fp->facts[i],
		(fp->n - i) * sizeof(*fp->facts));
	fp->facts[i].key = key_copy;
	fp->facts[i].value = value;
	fp->n++;
	return 0;
}

int xvbd_ab_fp_set(struct xvbd_ab_fp *fp, const char *key, const char *fmt,
		   ...)
{
	va_list ap;
	char *value;

	va_start(ap, fmt);
	value = format_escaped(fmt, ap);
	va_end(ap);
	if (!value)
		return -ENOMEM;
	return fact_put(fp, key, value);
}

const char *xvbd_ab_fp_get(const struct xvbd_ab_fp *fp, const char *key)
{
	bool found;
	size_t i = fact_find(fp, key, &found);

	return found ? fp->facts[i].value : NULL;
}

void xvbd_ab_fp_free(struct xvbd_ab_fp *fp)
{
	size_t i;

	for (i = 0; i < fp->n; i++) {
		free(fp->facts[i].key);
		free(fp->facts[i].value);
	}
	free(fp->facts);
	memset(fp, 0, sizeof(*fp));
}

/* ---- labels, ids, modes ---- */

static bool name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

bool xvbd_ab_label_valid(const char *label)
{
	size_t i;

	if (!label || !label[0] || label[0] == '.' || label[0] == '-')
		return false;
	for (i = 0; label[i]; i++)
		if (i >= XVBD_AB_LABEL_MAX || !name_char(label[i]))
			return false;
	return true;
}

static bool is_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static bool is_lower_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

bool xvbd_ab_id_split(const char *id, char *label, size_t len)
{
	size_t n = id ? strlen(id) : 0, llen;
	const char *sfx;

	if (n <= ID_SUFFIX_LEN || n >= XVBD_AB_ID_MAX)
		return false;
	llen = n - ID_SUFFIX_LEN;
	sfx = id + llen;
	/* -yyyymmddThhmmss-xxxx */
	if (sfx[0] != '-' || !is_digits(sfx + 1, 8) || sfx[9] != 'T' ||
	    !is_digits(sfx + 10, 6) || sfx[16] != '-' ||
	    !is_lower_hex(sfx + 17, 4))
		return false;
	if (llen >= len)
		return false;
	memcpy(label, id, llen);
	label[llen] = '\0';
	return xvbd_ab_label_valid(label);
}

int xvbd_ab_make_id(const char *label, int64_t unix_ns, char *buf,
		    size_t len)
{
	struct tm tm;
	time_t secs;
	uint8_t rnd[2];
	int n;

	if (!xvbd_ab_label_valid(label) || unix_ns < 0)
		return -EINVAL;
	secs = (time_t)(unix_ns / (int64_t)NS_PER_S);
	if (!gmtime_r(&secs, &tm) || tm.tm_year + 1900 > 9999)
		return -EINVAL;
	/* Two runs started in the same second under one label. */
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return errno ? -errno : -EIO;
	n = snprintf(buf, len, "%s-%04d%02d%02dT%02d%02d%02d-%02x%02x", label,
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		     tm.tm_min, tm.tm_sec, rnd[0], rnd[1]);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* RFC 3339, UTC, whole seconds: the human form of started_unix_ns. */
int xvbd_ab_format_started(int64_t unix_ns, char *buf, size_t len)
{
	struct tm tm;
	time_t secs = (time_t)(unix_ns / (int64_t)NS_PER_S);

	if (unix_ns < 0 || !gmtime_r(&secs, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return -EINVAL;
	return 0;
}

static const char *const mode_names[] = {
	[XVBD_AB_MODE_DURATION] = "duration",
	[XVBD_AB_MODE_RUN] = "run",
	[XVBD_AB_MODE_UNTIL_SHUTDOWN] = "until-shutdown",
};
#define NMODES (sizeof(mode_names) / sizeof(mode_names[0]))

const char *xvbd_ab_mode_name(enum xvbd_ab_mode m)
{
	return (unsigned)m < NMODES ? mode_names[m] : "?";
}

int xvbd_ab_mode_parse(const char *s, enum xvbd_ab_mode *mode)
{
	size_t i;

	for (i = 0; i < NMODES; i++) {
		if (!strcmp(s, mode_names[i])) {
			*mode = (enum xvbd_ab_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* ---- the record ---- */

int xvbd_ab_record_add(struct xvbd_ab_record *rec,
		       const struct xvbd_ab_sample *s)
{
	struct xvbd_ab_sample *dst;
	struct xvbd_ab_vbd_sample *vbds = NULL;

	if (rec->nsamples == rec->cap_samples) {
		size_t cap = rec->cap_samples ? rec->cap_samples * 2 : 64;
		struct xvbd_ab_sample *samples;

		samples = realloc(rec->samples, cap * sizeof(*samples));
		if (!samples)
			return -ENOMEM;
		rec->samples = samples;
		rec->cap_samples = cap;
	}
	if (rec->nvdevs) {
		vbds = malloc(rec->nvdevs * sizeof(*vbds));
		if (!vbds)
			return -ENOMEM;
		memcpy(vbds, s->vbds, rec->nvdevs * sizeof(*vbds));
	}
	dst = &rec->samples[rec->nsamples++];
	*dst = *s;
	dst->vbds = vbds;
	return 0;
}

int xvbd_ab_record_note(struct xvbd_ab_record *rec, const char *fmt, ...)
{
	va_list ap;
	char *note, **notes;

	if (rec->nnotes >= XVBD_AB_NOTES_MAX)
		return -E2BIG;
	va_start(ap, fmt);
	note = format_escaped(fmt, ap);
	va_end(ap);
	if (!note)
		return -ENOMEM;
	if (strlen(note) > XVBD_AB_TEXT_MAX)
		note[XVBD_AB_TEXT_MAX] = '\0';
	notes = realloc(rec->notes, (rec->nnotes + 1) * sizeof(*notes));
	if (!notes) {
		free(note);
		return -ENOMEM;
	}
	rec->notes = notes;
	rec->notes[rec->nnotes++] = note;
	return 0;
}

void xvbd_ab_record_free(struct xvbd_ab_record *rec)
{
	size_t i;

	if (!rec)
		return;
	free(rec->id);
	free(rec->label);
	free(rec->domain);
	for (i = 0; i < rec->nvdevs && rec->vdevs; i++)
		free(rec->vdevs[i]);
	free(rec->vdevs);
	free(rec->workload);
	free(rec->experiment);
	xvbd_ab_fp_free(&rec->fp);
	for (i = 0; i < rec->nsamples; i++)
		free(rec->samples[i].vbds);
	free(rec->samples);
	for (i = 0; i < rec->nnotes; i++)
		free(rec->notes[i]);
	free(rec->notes);
	free(rec->path);
	free(rec->untrusted);
	xvbd_ab_lat_free(rec->lat);
	if (rec->results)
		xvbd_wl_results_free(rec->results);
	free(rec->results);
	memset(rec, 0, sizeof(*rec));
}

static bool vdev_valid(const char *v)
{
	size_t i;

	if (!v[0])
		return false;
	for (i = 0; v[i]; i++)
		if (i >= VDEV_LEN_MAX ||
		    !((v[i] >= 'a' && v[i] <= 'z') ||
		      (v[i] >= '0' && v[i] <= '9')))
			return false;
	return true;
}

/* Both or neither: a pair means nothing outside its experiment. */
static int check_experiment(const struct xvbd_ab_record *rec,
			    struct xvbd_ab_err *e)
{
	if (!rec->experiment && !rec->pair && !rec->position)
		return 0;
	if (!rec->experiment || !xvbd_ab_label_valid(rec->experiment)) {
		err_set(e, "experiment: not an experiment id");
		return -EINVAL;
	}
	if (!rec->pair || rec->pair > XVBD_AB_PAIR_MAX) {
		err_set(e, "pair: not 1 to %d", XVBD_AB_PAIR_MAX);
		return -EINVAL;
	}
	if (rec->position > XVBD_AB_LEVELS_MAX) {
		err_set(e, "position: not 1 to %d", XVBD_AB_LEVELS_MAX);
		return -EINVAL;
	}
	return 0;
}

int xvbd_ab_record_check_head(const struct xvbd_ab_record *rec,
			      struct xvbd_ab_err *e)
{
	char label[XVBD_AB_ID_MAX];
	size_t i, j;

	if (!rec->label || !xvbd_ab_label_valid(rec->label)) {
		err_set(e, "label: not a valid label");
		return -EINVAL;
	}
	if (!rec->id || !xvbd_ab_id_split(rec->id, label, sizeof(label)) ||
	    strcmp(label, rec->label)) {
		err_set(e, "id: not \"%s-<yyyymmddThhmmss>-<4 hex>\"",
			rec->label);
		return -EINVAL;
	}
	if (rec->started_unix_ns < 0) {
		err_set(e, "started_unix_ns: negative");
		return -EINVAL;
	}
	if (!rec->domain || !rec->domain[0] ||
	    !xvbd_ab_printable(rec->domain, DOMAIN_LEN_MAX)) {
		err_set(e, "domain: not 1 to %d printable characters",
			DOMAIN_LEN_MAX);
		return -EINVAL;
	}
	if (!rec->nvdevs || rec->nvdevs > XVBD_AB_VDEVS_MAX || !rec->vdevs) {
		err_set(e, "vdevs: not 1 to %d VBDs", XVBD_AB_VDEVS_MAX);
		return -EINVAL;
	}
	for (i = 0; i < rec->nvdevs; i++) {
		if (!rec->vdevs[i] || !vdev_valid(rec->vdevs[i])) {
			err_set(e, "vdevs[%zu]: not a vdev name", i);
			return -EINVAL;
		}
		for (j = 0; j < i; j++) {
			if (!strcmp(rec->vdevs[i], rec->vdevs[j])) {
				err_set(e, "vdevs[%zu]: \"%s\" twice", i,
					rec->vdevs[i]);
				return -EINVAL;
			}
		}
	}
	if ((unsigned)rec->mode >= NMODES) {
		err_set(e, "mode: unknown");
		return -EINVAL;
	}
	if (!rec->workload || !rec->workload[0] ||
	    !xvbd_ab_printable(rec->workload, XVBD_AB_TEXT_MAX)) {
		err_set(e, "workload: not 1 to %d printable characters",
			XVBD_AB_TEXT_MAX);
		return -EINVAL;
	}
	if (rec->workload_status < 0 || rec->workload_status > 255 ||
	    (rec->mode != XVBD_AB_MODE_RUN && rec->workload_status)) {
		err_set(e, "workload_status: not an exit status of mode %s",
			xvbd_ab_mode_name(rec->mode));
		return -EINVAL;
	}
	if (check_experiment(rec, e))
		return -EINVAL;
	if (!rec->interval_ns || rec->interval_ns > XVBD_AB_INTERVAL_MAX_NS) {
		err_set(e, "interval_ns: not 1 ns to 1 day");
		return -EINVAL;
	}
	if (rec->warmup_ns > XVBD_AB_WARMUP_MAX_NS) {
		err_set(e, "warmup_ns: more than 1 day");
		return -EINVAL;
	}
	if (rec->fp.n > XVBD_AB_FACTS_MAX) {
		err_set(e, "fingerprint: more than %d facts",
			XVBD_AB_FACTS_MAX);
		return -EINVAL;
	}
	for (i = 0; i < rec->fp.n; i++) {
		const struct xvbd_ab_fact *f = &rec->fp.facts[i];

		if (!xvbd_ab_fact_key_valid(f->key)) {
			err_set(e, "fingerprint: key %zu: not a fact name", i);
			return -EINVAL;
		}
		if (i && strcmp(rec->fp.facts[i - 1].key, f->key) >= 0) {
			err_set(e, "fingerprint.%s: not sorted or twice",
				f->key);
			return -EINVAL;
		}
		if (!xvbd_ab_printable(f->value, XVBD_AB_TEXT_MAX)) {
			err_set(e, "fingerprint.%s: not printable text of at "
				"most %d bytes", f->key, XVBD_AB_TEXT_MAX);
			return -EINVAL;
		}
	}
	if (rec->nnotes > XVBD_AB_NOTES_MAX) {
		err_set(e, "notes: more than %d", XVBD_AB_NOTES_MAX);
		return -EINVAL;
	}
	for (i = 0; i < rec->nnotes; i++) {
		if (!xvbd_ab_printable(rec->notes[i], XVBD_AB_TEXT_MAX)) {
			err_set(e, "notes[%zu]: not printable text of at most "
				"%d bytes", i, XVBD_AB_TEXT_MAX);
			return -EINVAL;
		}
	}
	return 0;
}

int xvbd_ab_record_check(const struct xvbd_ab_record *rec,
			 struct xvbd_ab_err *e)
{
	size_t i, j;
	int rc = xvbd_ab_record_check_head(rec, e);

	if (rc)
		return rc;
	if (!rec->nsamples) {
		err_set(e, "samples: none (not even the baseline)");
		return -EINVAL;
	}
	if (rec->samples[0].t_ns) {
		err_set(e, "samples[0].t_ns: the baseline is not at 0");
		return -EINVAL;
	}
	for (i = 0; i < rec->nsamples; i++) {
		const struct xvbd_ab_sample *s = &rec->samples[i];

		if (i && s->t_ns <= rec->samples[i - 1].t_ns) {
			err_set(e, "samples[%zu].t_ns: not after samples[%zu]",
				i, i - 1);
			return -EINVAL;
		}
		if (!s->vbds) {
			err_set(e, "samples[%zu].vbds: missing", i);
			return -EINVAL;
		}
		for (j = 0; j < rec->nvdevs; j++) {
			const struct xvbd_ab_vbd_sample *v = &s->vbds[j];

			if (v->has_blk && (v->blk_rd_ticks_ms > UINT32_MAX ||
					   v->blk_wr_ticks_ms > UINT32_MAX ||
					   v->blk_io_ticks_ms > UINT32_MAX)) {
				err_set(e, "samples[%zu].vbds[%zu].blk: tick "
					"counter beyond 32 bits", i, j);
				return -EINVAL;
			}
		}
	}
	return 0;
}
