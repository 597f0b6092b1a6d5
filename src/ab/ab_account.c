/*
 * ab_account.c - where each I/O of a run went: what the guest's workload
 * counted (fio's bytes and I/Os), what blkback served (rd/wr requests and
 * sectors), what the backing device did (its I/Os and sectors), and the
 * two clocks (fio's runtime is the guest's, the run's window dom0's).
 *
 * Bytes, not request counts, decide: blkfront merges adjacent requests
 * and splits large ones, the block layer under blkback does the same,
 * so counts differ without anything being wrong; bytes only differ when
 * I/O went elsewhere.  Flags:
 *  - reads blkback served that the backing device did not read (for a
 *    file via loop, the disk holding the file: the loop device counts
 *    every request): dom0's page cache served them (seed 001: a file in
 *    dom0's cache against a partition);
 *  - fio counted more bytes than blkback saw: the job ran (partly) on
 *    another disk, or the guest's own page cache served it;
 *  - blkback saw more than fio counted: other I/O in the guest;
 *  - fio's runtime longer than the run itself: the guest's clock ran
 *    fast against dom0's (seed 002: a hypervisor clock 50 % fast).
 * All over the record's intervals that were not reset, summed over its
 * VBDs.  Pure: no I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "xvbd/ab/ab.h"
#include "xvbd/base/out.h"
#include "xvbd/base/vocab.h"
#include "ab_compare_impl.h"

#define SECTOR_BYTES	512
#define MIB		(1024.0 * 1024)
#define GIB		(MIB * 1024)
/* Beyond these, a difference of bytes is not rounding or a stray page. */
#define SHARE		0.10
#define MIN_BYTES	(UINT64_C(1) << 20)
/* The guest's clock against dom0's: beyond start-up and timer slack. */
#define CLOCK_RATIO	1.05
#define CLOCK_MIN_S	0.5

/* blkback's and the backing devices' counts over the counted intervals. */
static void dom0_counts(const struct xvbd_ab_record *rec,
			struct xvbd_ab_account *a)
{
	size_t i, j;

	a->dev_known = rec->nsamples > 1 && rec->nvdevs > 0;
	for (i = 1; i < rec->nsamples; i++) {
		for (j = 0; j < rec->nvdevs; j++) {
			const struct xvbd_ab_vbd_sample *p =
				&rec->samples[i - 1].vbds[j];
			const struct xvbd_ab_vbd_sample *v =
				&rec->samples[i].vbds[j];

			if (v->reset || v->c.rd_req < p->c.rd_req ||
			    v->c.wr_req < p->c.wr_req ||
			    v->c.rd_sect < p->c.rd_sect ||
			    v->c.wr_sect < p->c.wr_sect)
				continue;
			a->bb_rd_req += v->c.rd_req - p->c.rd_req;
			a->bb_wr_req += v->c.wr_req - p->c.wr_req;
			a->bb_rd_bytes += (v->c.rd_sect - p->c.rd_sect) *
					  SECTOR_BYTES;
			a->bb_wr_bytes += (v->c.wr_sect - p->c.wr_sect) *
					  SECTOR_BYTES;
			/* A loop's own counts are blkback's: the disk that
			 * holds its file is where a cache miss goes. */
			if (v->has_file_dev && p->has_file_dev &&
			    v->file_dev_rd_sect >= p->file_dev_rd_sect &&
			    v->file_dev_wr_sect >= p->file_dev_wr_sect) {
				a->dev_is_file_dev = true;
				a->dev_rd_bytes += (v->file_dev_rd_sect -
						    p->file_dev_rd_sect) *
						   SECTOR_BYTES;
				a->dev_wr_bytes += (v->file_dev_wr_sect -
						    p->file_dev_wr_sect) *
						   SECTOR_BYTES;
				continue;
			}
			if (!v->has_blk_sect || !p->has_blk_sect ||
			    v->blk_rd_sect < p->blk_rd_sect ||
			    v->blk_wr_sect < p->blk_wr_sect) {
				a->dev_known = false;
				continue;
			}
			a->dev_rd_bytes += (v->blk_rd_sect - p->blk_rd_sect) *
					   SECTOR_BYTES;
			a->dev_wr_bytes += (v->blk_wr_sect - p->blk_wr_sect) *
					   SECTOR_BYTES;
		}
	}
}

/* fio's jobs: bytes, I/Os, runtime; a file that is no recorded VBD. */
static void guest_counts(const struct xvbd_ab_record *rec,
			 struct xvbd_ab_account *a)
{
	const struct xvbd_wl_fio *f = &rec->results->fio;
	struct xvbd_wl_dir_total t;
	uint64_t runtime = 0;
	size_t i, k, j;

	a->guest_known = true;
	xvbd_wl_fio_total(f, XVBD_WL_READ, &t);
	a->guest_rd_bytes = t.bytes;
	a->guest_rd_ios = t.ios;
	xvbd_wl_fio_total(f, XVBD_WL_WRITE, &t);
	a->guest_wr_bytes = t.bytes;
	a->guest_wr_ios = t.ios;
	/* Groups run one after the other, a group's jobs side by side. */
	for (i = 0; i < f->njobs; i++) {
		uint64_t longest = 0;
		bool first = true;

		for (k = 0; k < i && first; k++)
			first = f->jobs[k].groupid != f->jobs[i].groupid;
		for (k = i; first && k < f->njobs; k++)
			if (f->jobs[k].groupid == f->jobs[i].groupid &&
			    f->jobs[k].job_runtime_ms > longest)
				longest = f->jobs[k].job_runtime_ms;
		runtime += longest;
	}
	a->guest_runtime_s = (double)runtime / 1000;
	/* A job on /dev/xvdX that is not one of the recorded VBDs. */
	for (i = 0; i < f->njobs && !a->elsewhere[0]; i++) {
		const char *file = xvbd_wl_job_opt(&f->jobs[i], "filename");

		if (!file || strncmp(file, "/dev/xvd", 8))
			continue;
		for (j = 0; j < rec->nvdevs; j++)
			if (!strncmp(file + 5, rec->vdevs[j],
				     strlen(rec->vdevs[j])))
				break;
		if (j == rec->nvdevs)
			snprintf(a->elsewhere, sizeof(a->elsewhere), "%.60s",
				 file);
	}
}

int xvbd_ab_account(const struct xvbd_ab_record *rec,
		    struct xvbd_ab_account *a)
{
	uint64_t bb, guest;
	double life_s;

	memset(a, 0, sizeof(*a));
	if (!rec || (rec->nsamples && rec->nvdevs && !rec->samples[0].vbds))
		return -EINVAL;
	dom0_counts(rec, a);
	if (!rec->results || rec->results->format != XVBD_WL_FIO)
		return 0;
	guest_counts(rec, a);
	/* Reads blkback served that never reached the backing device. */
	if (a->dev_known && a->bb_rd_bytes >= MIN_BYTES &&
	    a->dev_rd_bytes < (1 - SHARE) * (double)a->bb_rd_bytes) {
		a->cached = true;
		a->cached_pct = 100.0 * (1 - (double)a->dev_rd_bytes /
					 (double)a->bb_rd_bytes);
	}
	bb = a->bb_rd_bytes + a->bb_wr_bytes;
	guest = a->guest_rd_bytes + a->guest_wr_bytes;
	if (guest >= MIN_BYTES && guest > (1 + SHARE) * (double)bb) {
		a->guest_more = true;
		a->ratio = bb ? (double)guest / (double)bb : 0;
	} else if (bb >= guest + MIN_BYTES &&
		   bb > (1 + SHARE) * (double)guest) {
		a->blkback_more = true;
		a->ratio = guest ? (double)bb / (double)guest : 0;
	}
	/* The command's life in dom0's time: a warmup started it early. */
	life_s = rec->nsamples ?
		 (double)(rec->samples[rec->nsamples - 1].t_ns +
			  (rec->mode == XVBD_AB_MODE_RUN ? rec->warmup_ns : 0)) /
		 1e9 : 0;
	a->window_s = life_s;
	a->clock_known = life_s > 0 && a->guest_runtime_s > 0;
	if (a->clock_known &&
	    a->guest_runtime_s > CLOCK_RATIO * life_s &&
	    a->guest_runtime_s - life_s > CLOCK_MIN_S) {
		a->clock_fast = true;
		a->clock_ratio = a->guest_runtime_s / life_s;
	}
	return 0;
}

/* "1.00 GiB", "12.0 MiB", "512 KiB" */
static void size_text(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= GIB)
		snprintf(buf, len, "%.2f GiB", (double)bytes / GIB);
	else if (bytes >= MIB)
		snprintf(buf, len, "%.1f MiB", (double)bytes / MIB);
	else
		snprintf(buf, len, "%.0f KiB", (double)bytes / 1024);
}

int xvbd_ab_account_text(const struct xvbd_ab_account *a, size_t k,
			 char *buf, size_t len)
{
	char g[32], b[32], d[32];
	size_t i = 0;

	if (a->elsewhere[0] && i++ == k) {
		snprintf(buf, len, "fio's job used %s, which is not one of "
			 "the recorded VBDs: its figures are another disk's",
			 a->elsewhere);
		return 0;
	}
	if (a->cached && i++ == k) {
		size_text(a->guest_rd_bytes, g, sizeof(g));
		size_text(a->bb_rd_bytes, b, sizeof(b));
		size_text(a->dev_rd_bytes, d, sizeof(d));
		snprintf(buf, len, "guest read %s, blkback %s, %s %s: %.0f %% "
			 "served from dom0's page cache", g, b,
			 a->dev_is_file_dev ? "the disk holding the image" :
			 "backing device", d, a->cached_pct);
		return 0;
	}
	if (a->guest_more && i++ == k) {
		size_text(a->guest_rd_bytes + a->guest_wr_bytes, g, sizeof(g));
		size_text(a->bb_rd_bytes + a->bb_wr_bytes, b, sizeof(b));
		if (a->ratio > 0)
			snprintf(d, sizeof(d), "%.1fx", a->ratio);
		else
			snprintf(d, sizeof(d), "more than");
		snprintf(buf, len, "fio counted %s the bytes blkback saw (%s "
			 "against %s): the job did not run (only) on the "
			 "recorded VBDs, or the guest's page cache served it",
			 d, g, b);
		return 0;
	}
	if (a->blkback_more && i++ == k) {
		size_text(a->guest_rd_bytes + a->guest_wr_bytes, g, sizeof(g));
		size_text(a->bb_rd_bytes + a->bb_wr_bytes, b, sizeof(b));
		snprintf(buf, len, "blkback saw %.1fx the bytes fio counted "
			 "(%s against %s): other I/O in the guest reached the "
			 "VBD (readahead, the filesystem, another process)",
			 a->ratio, b, g);
		return 0;
	}
	if (a->clock_fast && i++ == k) {
		snprintf(buf, len, "the guest's clock ran %.2fx dom0's: fio's "
			 "runtime %.1f s (the guest's clock) within a run of "
			 "%.1f s (dom0's): the guest's rates are per guest "
			 "second", a->clock_ratio, a->guest_runtime_s,
			 a->window_s);
		return 0;
	}
	return -ENOENT;
}

void xvbd_ab_account_render(struct xvbd_out *o, const char *key,
			    const struct xvbd_ab_account *a)
{
	char line[512];
	size_t k;

	xvbd_out_obj_begin(o, key);
	xvbd_out_uint_opt(o, XVBD_QN(GUEST_READ_BYTES), a->guest_known,
			  a->guest_rd_bytes);
	xvbd_out_uint_opt(o, XVBD_QN(GUEST_WRITE_BYTES), a->guest_known,
			  a->guest_wr_bytes);
	xvbd_out_uint_opt(o, XVBD_QN(GUEST_READ_IOS), a->guest_known,
			  a->guest_rd_ios);
	xvbd_out_uint_opt(o, XVBD_QN(GUEST_WRITE_IOS), a->guest_known,
			  a->guest_wr_ios);
	xvbd_out_uint(o, XVBD_QN(BLKBACK_READ_BYTES), a->bb_rd_bytes);
	xvbd_out_uint(o, XVBD_QN(BLKBACK_WRITE_BYTES), a->bb_wr_bytes);
	xvbd_out_uint(o, XVBD_QN(BLKBACK_READ_REQUESTS), a->bb_rd_req);
	xvbd_out_uint(o, XVBD_QN(BLKBACK_WRITE_REQUESTS), a->bb_wr_req);
	xvbd_out_uint_opt(o, XVBD_QN(DEVICE_READ_BYTES), a->dev_known,
			  a->dev_rd_bytes);
	xvbd_out_uint_opt(o, XVBD_QN(DEVICE_WRITE_BYTES), a->dev_known,
			  a->dev_wr_bytes);
	xvbd_out_fixed_opt(o, XVBD_QN(GUEST_RUNTIME_S), a->guest_known,
			   a->guest_runtime_s, 3);
	xvbd_out_fixed_opt(o, XVBD_QN(RUN_S), a->clock_known, a->window_s, 3);
	xvbd_out_arr_begin(o, "flags");
	for (k = 0; !xvbd_ab_account_text(a, k, line, sizeof(line)); k++)
		xvbd_out_str(o, NULL, line);
	xvbd_out_arr_end(o);
	xvbd_out_obj_end(o);
}

int ab_account_compare(struct xvbd_ab_comparison *c, const char *side,
		       const struct xvbd_ab_record *r, size_t n)
{
	struct xvbd_ab_account a;
	char line[512];
	size_t i, k;
	int rc = 0;

	for (i = 0; i < n && !rc; i++) {
		if (xvbd_ab_account(&r[i], &a))
			continue;
		for (k = 0; !rc && !xvbd_ab_account_text(&a, k, line,
							 sizeof(line)); k++)
			rc = ab_warn(c, "%s run %s: %s", side, r[i].id, line);
	}
	return rc;
}
