/*
 * vocab.h - the vocabulary: one name per quantity xvbd prints.
 *
 * Every number a command prints about disks, domains and runs is named
 * here once: its machine name (snake_case, the unit in the name), used
 * as the JSON key, the CSV column and `ab --metric`'s word; the
 * abbreviation a text table's header may use instead; its unit as text
 * prints it; what it means (`xvbd help metrics`, man xvbd(1)'s METRICS);
 * its Prometheus family; and the names it had before, which --metric
 * still reads with a note.  The names sit in the base layer beside the
 * out layer that prints them: every layer above renders through out, and
 * a stats row and an A/B summary name the same quantity alike.
 */
#ifndef XVBD_VOCAB_H
#define XVBD_VOCAB_H

#include <stdbool.h>
#include <stddef.h>

enum xvbd_q {
	/* a VBD's requests: per interval (stats), per run (ab) */
	XVBD_Q_READ_IOPS,
	XVBD_Q_WRITE_IOPS,
	XVBD_Q_READ_MB_PER_S,
	XVBD_Q_WRITE_MB_PER_S,
	XVBD_Q_FLUSH_IOPS,
	XVBD_Q_DISCARD_IOPS,
	XVBD_Q_OO_REQ_PER_S,
	/* the backing device */
	XVBD_Q_READ_LAT_MS,
	XVBD_Q_WRITE_LAT_MS,
	XVBD_Q_QUEUE_DEPTH,
	XVBD_Q_READ_P50_MS,
	XVBD_Q_READ_P99_MS,
	XVBD_Q_READ_P99_9_MS,
	XVBD_Q_READ_MAX_MS,
	XVBD_Q_WRITE_P50_MS,
	XVBD_Q_WRITE_P99_MS,
	XVBD_Q_WRITE_P99_9_MS,
	XVBD_Q_WRITE_MAX_MS,
	XVBD_Q_D2C,
	XVBD_Q_I2C,
	/* what the VBD costs dom0, the size of its requests */
	XVBD_Q_BACKEND_CPU_NS,
	XVBD_Q_BACKEND_CPU_PCT,
	XVBD_Q_BACKEND_US_PER_REQ,
	XVBD_Q_READ_KIB_PER_REQ,
	XVBD_Q_WRITE_KIB_PER_REQ,
	XVBD_Q_CEILING_SEGMENTS,
	XVBD_Q_CEILING_KIB,
	XVBD_Q_CEILING_PCT,
	XVBD_Q_READ_CEILING_PCT,
	XVBD_Q_WRITE_CEILING_PCT,
	XVBD_Q_FRONTEND_DEFAULT_KIB,
	XVBD_Q_IOPS,
	XVBD_Q_REQUESTS,
	/* rings and queues: what was negotiated, what may be */
	XVBD_Q_RING_PAGES,
	XVBD_Q_MAX_RING_PAGE_ORDER,
	XVBD_Q_QUEUES,
	XVBD_Q_MAX_QUEUES,
	XVBD_Q_RINGS,
	XVBD_Q_RING,
	XVBD_Q_RING_CPU_PCT,
	/* blkback's cumulative counters, under their sysfs names */
	XVBD_Q_RD_REQ,
	XVBD_Q_WR_REQ,
	XVBD_Q_RD_SECT,
	XVBD_Q_WR_SECT,
	XVBD_Q_F_REQ,
	XVBD_Q_DS_REQ,
	XVBD_Q_OO_REQ,
	/* a domain */
	XVBD_Q_CPU_NS,
	XVBD_Q_CPU_PCT,
	XVBD_Q_VCPUS,
	XVBD_Q_VCPU_NS,
	XVBD_Q_VCPU_PCT,
	XVBD_Q_MEM_BYTES,
	XVBD_Q_GUEST_CPU_PCT,
	XVBD_Q_DOM0_CPU_PCT,
	XVBD_Q_GUEST_CPU_S,
	XVBD_Q_DOM0_CPU_S,
	/* time */
	XVBD_Q_INTERVAL_S,
	XVBD_Q_DURATION_S,
	XVBD_Q_RUN_S,
	XVBD_Q_BUSY_S,
	XVBD_Q_USED_S,
	XVBD_Q_WARMUP_S,
	/* a record's samples and intervals */
	XVBD_Q_SAMPLES,
	XVBD_Q_READ_BYTES,
	XVBD_Q_WRITE_BYTES,
	XVBD_Q_INTERVALS,
	XVBD_Q_INTERVALS_RESET,
	XVBD_Q_INTERVALS_FLAGGED,
	/* a run's rates over its whole window */
	XVBD_Q_READ_IOPS_WINDOW,
	XVBD_Q_WRITE_IOPS_WINDOW,
	XVBD_Q_READ_MB_PER_S_WINDOW,
	XVBD_Q_WRITE_MB_PER_S_WINDOW,
	/* the guest's own figures (fio's JSON, a benchmark's lines) */
	XVBD_Q_GUEST_READ_IOPS,
	XVBD_Q_GUEST_WRITE_IOPS,
	XVBD_Q_GUEST_READ_MB_PER_S,
	XVBD_Q_GUEST_WRITE_MB_PER_S,
	XVBD_Q_GUEST_READ_CLAT_MS,
	XVBD_Q_GUEST_READ_CLAT_P50_MS,
	XVBD_Q_GUEST_READ_CLAT_P99_MS,
	XVBD_Q_GUEST_READ_CLAT_P99_9_MS,
	XVBD_Q_GUEST_READ_CLAT_MAX_MS,
	XVBD_Q_GUEST_WRITE_CLAT_MS,
	XVBD_Q_GUEST_WRITE_CLAT_P50_MS,
	XVBD_Q_GUEST_WRITE_CLAT_P99_MS,
	XVBD_Q_GUEST_WRITE_CLAT_P99_9_MS,
	XVBD_Q_GUEST_WRITE_CLAT_MAX_MS,
	XVBD_Q_BENCH_LOWER_1,
	XVBD_Q_BENCH_LOWER_2,
	XVBD_Q_BENCH_LOWER_3,
	XVBD_Q_BENCH_LOWER_4,
	XVBD_Q_BENCH_HIGHER_1,
	XVBD_Q_BENCH_HIGHER_2,
	XVBD_Q_BENCH_HIGHER_3,
	XVBD_Q_BENCH_HIGHER_4,
	/* latency distributions (stats' and a record's latency objects) */
	XVBD_Q_COUNT,
	XVBD_Q_SUM_NS,
	XVBD_Q_P50_NS,
	XVBD_Q_P99_NS,
	XVBD_Q_P999_NS,
	XVBD_Q_MAX_NS,
	XVBD_Q_P50_MS,
	XVBD_Q_P90_MS,
	XVBD_Q_P99_MS,
	XVBD_Q_P99_9_MS,
	XVBD_Q_P99_99_MS,
	XVBD_Q_MAX_MS,
	XVBD_Q_MEAN_MS,
	XVBD_Q_RELATIVE_ERROR,
	XVBD_Q_BACKWARDS,
	XVBD_Q_RUNS,
	XVBD_Q_SELECTED_RUNS,
	XVBD_Q_RUNS_WITH_LATENCY,
	XVBD_Q_INCOMPLETE,
	XVBD_Q_IOS,
	XVBD_Q_MAX_BIN_MS,
	/* the guest against its device (pv_path) */
	XVBD_Q_GUEST_MS,
	XVBD_Q_DEVICE_MS,
	XVBD_Q_PV_PATH_MS,
	XVBD_Q_PV_PATH_PCT,
	XVBD_Q_DEVICE_REQUESTS,
	/* what else used the host during a run (interference) */
	XVBD_Q_CPU_THRESHOLD_PCT,
	XVBD_Q_HOST_CPUS,
	XVBD_Q_OTHER_DOMAINS,
	XVBD_Q_HOST_PCT,
	XVBD_Q_DEVICE_IOS,
	XVBD_Q_VBD_REQUESTS,
	XVBD_Q_FOREIGN_IOS,
	XVBD_Q_DEVICE_SECTORS,
	XVBD_Q_VBD_SECTORS,
	XVBD_Q_FOREIGN_SECTORS,
	XVBD_Q_FOREIGN_PCT,
	/* where a run's I/O went (accounting) */
	XVBD_Q_GUEST_READ_IOS,
	XVBD_Q_GUEST_WRITE_IOS,
	XVBD_Q_GUEST_READ_BYTES,
	XVBD_Q_GUEST_WRITE_BYTES,
	XVBD_Q_GUEST_RUNTIME_S,
	XVBD_Q_BLKBACK_READ_REQUESTS,
	XVBD_Q_BLKBACK_WRITE_REQUESTS,
	XVBD_Q_BLKBACK_READ_BYTES,
	XVBD_Q_BLKBACK_WRITE_BYTES,
	XVBD_Q_DEVICE_READ_BYTES,
	XVBD_Q_DEVICE_WRITE_BYTES,
	/* a VBD as `xvbd list` and `show` print it */
	XVBD_Q_SIZE_BYTES,
	XVBD_Q_INDIRECT_SEGMENTS_OFFERED,
	XVBD_Q_N,
};

struct xvbd_quantity {
	const char *name;	/* snake_case, unit in the name */
	/* a text table's header; NULL: the name, upper-cased */
	const char *abbrev;
	const char *unit;	/* as text prints it; "" a count */
	const char *meaning;	/* one line */
	/* the Prometheus family `stats --prometheus` writes; NULL none */
	const char *prom;
	/* earlier names, blank-separated ("read-mbs rd_bytes_per_s"); "" */
	const char *old;
};

extern const struct xvbd_quantity xvbd_quantities[XVBD_Q_N];

static inline const char *xvbd_q_name(enum xvbd_q q)
{
	return xvbd_quantities[q].name;
}

/*
 * XVBD_QN(READ_IOPS): "read_iops", a name spelled by the table only (each
 * XVBD_Q_X is its name upper-cased: tests/man.sh reads them so)
 */
#define XVBD_QN(id)	xvbd_q_name(XVBD_Q_##id)

static inline const char *xvbd_q_unit(enum xvbd_q q)
{
	return xvbd_quantities[q].unit;
}

/*
 * By name, or by one of its earlier names (*old true then; old may be
 * NULL); -1 when neither.
 */
int xvbd_q_find(const char *name, bool *old);
/* The text header of a key: the abbreviation, NULL without one. */
const char *xvbd_q_abbrev(const char *key);
#endif /* XVBD_VOCAB_H */
