/*
 * vocab.c - the vocabulary's one table (vocab.h).
 *
 * A rate over an interval in `xvbd stats` and over a run in `ab` is the
 * same quantity and has the same name; whether it is over a run's busy
 * span or its whole window the document around it says (the _window
 * names are the whole window's).  MB are 10^6 bytes, KiB 1024; "%CPU" is
 * a percent of one CPU (xentop's CPU(%)), "%" alone a share.  The old
 * names are those the documents and --metric used before this table.
 */
#include <string.h>

#include "xvbd/base/vocab.h"

#define GUEST_CLAT(dir, what, text, old) \
	{ "guest_" dir "_clat_" what "ms", NULL, "ms", \
	  "the guest's " dir " completion latency (fio's clat): " text, \
	  NULL, old }
#define BENCH(dir, n, better) \
	{ "bench_" dir "_" #n, NULL, "", "the guest benchmark's unit " #n \
	  " whose " better " values are better (its own unit)", NULL, \
	  "bench-" dir "-" #n }

const struct xvbd_quantity xvbd_quantities[XVBD_Q_N] = {
	[XVBD_Q_READ_IOPS] = { "read_iops", "RD/s", "IO/s",
		"read requests per second (blkback's rd_req)", NULL,
		"read-iops rd_req_per_s" },
	[XVBD_Q_WRITE_IOPS] = { "write_iops", "WR/s", "IO/s",
		"write requests per second (blkback's wr_req)", NULL,
		"write-iops wr_req_per_s" },
	[XVBD_Q_READ_MB_PER_S] = { "read_mb_per_s", "RD-MB/s", "MB/s",
		"bytes read per second / 10^6 (blkback's rd_sect x 512)", NULL,
		"read-mbs rd_bytes_per_s rd_mb_per_s" },
	[XVBD_Q_WRITE_MB_PER_S] = { "write_mb_per_s", "WR-MB/s", "MB/s",
		"bytes written per second / 10^6 (wr_sect x 512)", NULL,
		"write-mbs wr_bytes_per_s wr_mb_per_s" },
	[XVBD_Q_FLUSH_IOPS] = { "flush_iops", "FLUSH/s", "IO/s",
		"flush and barrier requests per second (f_req)", NULL,
		"f_req_per_s" },
	[XVBD_Q_DISCARD_IOPS] = { "discard_iops", "DISCARD/s", "IO/s",
		"discard requests per second (ds_req)", NULL, "ds_req_per_s" },
	[XVBD_Q_OO_REQ_PER_S] = { "oo_req_per_s", "OO/s", "1/s",
		"times per second the ring had no free request (oo_req)",
		NULL, "" },
	[XVBD_Q_READ_LAT_MS] = { "read_lat_ms", "RD-LAT(ms)", "ms",
		"backing device: time per read (its rd_ticks / rd_ios)",
		"xvbd_vbd_read_latency_seconds", "read-lat rd_lat_ms" },
	[XVBD_Q_WRITE_LAT_MS] = { "write_lat_ms", "WR-LAT(ms)", "ms",
		"backing device: time per write (wr_ticks / wr_ios)",
		"xvbd_vbd_write_latency_seconds", "write-lat wr_lat_ms" },
	[XVBD_Q_QUEUE_DEPTH] = { "queue_depth", "QDEPTH", "",
		"backing device: average requests in its queue",
		"xvbd_vbd_queue_depth", "" },
	[XVBD_Q_READ_P50_MS] = { "read_p50_ms", "RD-P50(ms)", "ms",
		"backing device: median read service time (d2c, tracepoints)",
		NULL, "read-p50 rd_p50_ms" },
	[XVBD_Q_READ_P99_MS] = { "read_p99_ms", "RD-P99", "ms",
		"backing device: 99th percentile of read service time", NULL,
		"read-p99 rd_p99_ms" },
	[XVBD_Q_READ_P99_9_MS] = { "read_p99_9_ms", "RD-P99.9", "ms",
		"backing device: 99.9th percentile of read service time", NULL,
		"rd_p999_ms" },
	[XVBD_Q_READ_MAX_MS] = { "read_max_ms", "RD-MAX", "ms",
		"backing device: longest read service time", NULL,
		"read-max rd_max_ms" },
	[XVBD_Q_WRITE_P50_MS] = { "write_p50_ms", "WR-P50(ms)", "ms",
		"backing device: median write service time", NULL,
		"write-p50 wr_p50_ms" },
	[XVBD_Q_WRITE_P99_MS] = { "write_p99_ms", "WR-P99", "ms",
		"backing device: 99th percentile of write service time", NULL,
		"write-p99 wr_p99_ms" },
	[XVBD_Q_WRITE_P99_9_MS] = { "write_p99_9_ms", "WR-P99.9", "ms",
		"backing device: 99.9th percentile of write service time",
		NULL, "wr_p999_ms" },
	[XVBD_Q_WRITE_MAX_MS] = { "write_max_ms", "WR-MAX", "ms",
		"backing device: longest write service time", NULL,
		"write-max wr_max_ms" },
	[XVBD_Q_D2C] = { "d2c", NULL, "ns",
		"backing device: histogram of issue-to-completion times "
		"(block_rq_issue to block_rq_complete)",
		"xvbd_vbd_backing_d2c_seconds", "" },
	[XVBD_Q_I2C] = { "i2c", NULL, "ns",
		"backing device: histogram of insert-to-completion times "
		"(block_rq_insert to block_rq_complete)",
		"xvbd_vbd_backing_i2c_seconds", "" },
	[XVBD_Q_BACKEND_CPU_NS] = { "backend_cpu_ns", NULL, "ns",
		"CPU time of blkback's threads of the VBD's rings, cumulative",
		"xvbd_vbd_backend_cpu_seconds_total", "" },
	[XVBD_Q_BACKEND_CPU_PCT] = { "backend_cpu_pct", "BE-CPU%", "%CPU",
		"blkback's ring threads' CPU time / wall time x 100",
		"xvbd_vbd_backend_cpu_percent", "backend-cpu" },
	[XVBD_Q_BACKEND_US_PER_REQ] = { "backend_us_per_req", "BE-US/REQ",
		"us/req", "blkback's ring threads' CPU time per request, "
		"all kinds", "xvbd_vbd_backend_cpu_microseconds_per_request",
		"backend-us-per-req" },
	[XVBD_Q_READ_KIB_PER_REQ] = { "read_kib_per_req", "RD-KiB/REQ",
		"KiB", "average read request size (rd_sect x 512 / rd_req)",
		"xvbd_vbd_read_kib_per_request",
		"read-kib-per-req rd_kib_per_req" },
	[XVBD_Q_WRITE_KIB_PER_REQ] = { "write_kib_per_req", "WR-KiB/REQ",
		"KiB", "average write request size",
		"xvbd_vbd_write_kib_per_request",
		"write-kib-per-req wr_kib_per_req" },
	[XVBD_Q_CEILING_SEGMENTS] = { "ceiling_segments", NULL, "",
		"segments a request may carry: 11, or the indirect segments "
		"the backend offers", NULL, "" },
	[XVBD_Q_CEILING_KIB] = { "ceiling_kib", "MAX-KiB", "KiB",
		"largest request the backend's offer allows (segments x 4 KiB)",
		"xvbd_vbd_request_ceiling_kib", "" },
	[XVBD_Q_CEILING_PCT] = { "ceiling_pct", NULL, "%",
		"average request size in % of ceiling_kib", NULL, "" },
	[XVBD_Q_READ_CEILING_PCT] = { "read_ceiling_pct", NULL, "%",
		"read_kib_per_req in % of ceiling_kib", NULL,
		"rd_ceiling_pct" },
	[XVBD_Q_WRITE_CEILING_PCT] = { "write_ceiling_pct", NULL, "%",
		"write_kib_per_req in % of ceiling_kib", NULL,
		"wr_ceiling_pct" },
	[XVBD_Q_FRONTEND_DEFAULT_KIB] = { "frontend_default_kib", NULL, "KiB",
		"largest request Linux's blkfront makes by default (its 32 "
		"indirect segments)", NULL, "" },
	[XVBD_Q_IOPS] = { "iops", NULL, "IO/s",
		"read and write requests per second", NULL, "req_per_s" },
	[XVBD_Q_REQUESTS] = { "requests", NULL, "",
		"requests of all kinds in the time sampled", NULL, "" },
	[XVBD_Q_RING_PAGES] = { "ring_pages", "RING", "pages",
		"pages of each of the VBD's rings, as negotiated", NULL, "" },
	[XVBD_Q_MAX_RING_PAGE_ORDER] = { "max_ring_page_order", NULL, "",
		"largest ring order blkback may offer (its module "
		"parameter)", NULL, "" },
	[XVBD_Q_QUEUES] = { "queues", "QUEUES", "",
		"rings (queues) the frontend chose", NULL, "" },
	[XVBD_Q_MAX_QUEUES] = { "max_queues", NULL, "",
		"queues blkback may offer (its module parameter)", NULL, "" },
	[XVBD_Q_RINGS] = { "rings", NULL, "",
		"rings with a blkback thread seen", NULL, "" },
	[XVBD_Q_RING] = { "ring", NULL, "", "a ring's index, from 0",
		NULL, "" },
	[XVBD_Q_RING_CPU_PCT] = { "ring_cpu_pct", NULL, "%CPU",
		"one ring thread's CPU time / wall time x 100", NULL, "" },
	[XVBD_Q_RD_REQ] = { "rd_req", NULL, "",
		"blkback's counter of read requests since the VBD connected",
		"xvbd_vbd_read_requests_total", "" },
	[XVBD_Q_WR_REQ] = { "wr_req", NULL, "",
		"blkback's counter of write requests",
		"xvbd_vbd_write_requests_total", "" },
	[XVBD_Q_RD_SECT] = { "rd_sect", NULL, "sectors",
		"blkback's counter of 512-byte sectors read (Prometheus: "
		"bytes)", "xvbd_vbd_read_bytes_total", "" },
	[XVBD_Q_WR_SECT] = { "wr_sect", NULL, "sectors",
		"blkback's counter of 512-byte sectors written (Prometheus: "
		"bytes)", "xvbd_vbd_write_bytes_total", "" },
	[XVBD_Q_F_REQ] = { "f_req", NULL, "",
		"blkback's counter of flush and barrier requests",
		"xvbd_vbd_flush_requests_total", "" },
	[XVBD_Q_DS_REQ] = { "ds_req", NULL, "",
		"blkback's counter of discard requests",
		"xvbd_vbd_discard_requests_total", "" },
	[XVBD_Q_OO_REQ] = { "oo_req", NULL, "",
		"blkback's counter of times the ring had no free request",
		"xvbd_vbd_out_of_requests_total", "" },
	[XVBD_Q_CPU_NS] = { "cpu_ns", NULL, "ns",
		"CPU time of all of the domain's vCPUs (or of a ring's "
		"thread), cumulative", "xvbd_domain_cpu_seconds_total", "" },
	[XVBD_Q_CPU_PCT] = { "cpu_pct", "CPU%", "%CPU",
		"CPU time / wall time x 100 (xentop's CPU(%))",
		"xvbd_domain_cpu_percent", "" },
	[XVBD_Q_VCPUS] = { "vcpus", "VCPUS", "", "online vCPUs",
		"xvbd_domain_vcpus", "" },
	[XVBD_Q_VCPU_NS] = { "vcpu_ns", NULL, "ns",
		"each vCPU's CPU time, cumulative", NULL, "" },
	[XVBD_Q_VCPU_PCT] = { "vcpu_pct", "VCPU%", "%CPU",
		"each vCPU's CPU time / wall time x 100", NULL, "" },
	[XVBD_Q_MEM_BYTES] = { "mem_bytes", "MEM", "bytes",
		"the domain's current memory allocation",
		"xvbd_domain_memory_bytes", "" },
	[XVBD_Q_GUEST_CPU_PCT] = { "guest_cpu_pct", NULL, "%CPU",
		"the guest's cpu_pct over a run", NULL, "guest-cpu" },
	[XVBD_Q_DOM0_CPU_PCT] = { "dom0_cpu_pct", NULL, "%CPU",
		"dom0's cpu_pct over a run", NULL, "dom0-cpu" },
	[XVBD_Q_GUEST_CPU_S] = { "guest_cpu_s", NULL, "s",
		"the guest's CPU time over a recording", NULL,
		"guest_cpu_seconds" },
	[XVBD_Q_DOM0_CPU_S] = { "dom0_cpu_s", NULL, "s",
		"dom0's CPU time over a recording", NULL, "dom0_cpu_seconds" },
	[XVBD_Q_SAMPLES] = { "samples", NULL, "", "samples in a record",
		NULL, "" },
	[XVBD_Q_READ_BYTES] = { "read_bytes", "READ-BYTES", "bytes",
		"bytes the VBD's requests read in a recording (rd_sect x 512)",
		NULL, "rd_bytes" },
	[XVBD_Q_WRITE_BYTES] = { "write_bytes", "WRITE-BYTES", "bytes",
		"bytes the VBD's requests wrote in a recording", NULL,
		"wr_bytes" },
	[XVBD_Q_INTERVAL_S] = { "interval_s", "INTERVAL(s)", "s",
		"time between two samples", NULL, "" },
	[XVBD_Q_DURATION_S] = { "duration_s", "SECONDS", "s",
		"how long a record's samples cover, its first to its last",
		NULL, "" },
	[XVBD_Q_RUN_S] = { "run_s", NULL, "s",
		"how long the workload took: to --run's end or the guest's "
		"shutdown (unknown with --duration, which is chosen)", NULL,
		"seconds" },
	[XVBD_Q_BUSY_S] = { "busy_s", NULL, "s",
		"a run's busy span: its first to its last interval with I/O; "
		"a run's rates are over it", NULL,
		"busy-seconds busy_seconds" },
	[XVBD_Q_USED_S] = { "used_s", NULL, "s",
		"a run's intervals that count (not reset or flagged), summed",
		NULL, "" },
	[XVBD_Q_WARMUP_S] = { "warmup_s", NULL, "s",
		"time left out at a run's start (--warmup)", NULL, "" },
	[XVBD_Q_INTERVALS] = { "intervals", NULL, "",
		"intervals between a record's samples", NULL, "" },
	[XVBD_Q_INTERVALS_RESET] = { "intervals_reset", NULL, "",
		"intervals left out: a counter went back or was replaced",
		NULL, "" },
	[XVBD_Q_INTERVALS_FLAGGED] = { "intervals_flagged", NULL, "",
		"intervals left out: time did not advance or CPU time "
		"outran it", NULL, "" },
	[XVBD_Q_READ_IOPS_WINDOW] = { "read_iops_window", NULL, "IO/s",
		"read_iops over a run's whole window, idle time included",
		NULL, "" },
	[XVBD_Q_WRITE_IOPS_WINDOW] = { "write_iops_window", NULL, "IO/s",
		"write_iops over a run's whole window", NULL, "" },
	[XVBD_Q_READ_MB_PER_S_WINDOW] = { "read_mb_per_s_window", NULL,
		"MB/s", "read_mb_per_s over a run's whole window", NULL, "" },
	[XVBD_Q_WRITE_MB_PER_S_WINDOW] = { "write_mb_per_s_window", NULL,
		"MB/s", "write_mb_per_s over a run's whole window", NULL, "" },
	[XVBD_Q_GUEST_READ_IOPS] = { "guest_read_iops", NULL, "IO/s",
		"the guest's read IO/s (fio's, over its jobs)", NULL,
		"guest-read-iops" },
	[XVBD_Q_GUEST_WRITE_IOPS] = { "guest_write_iops", NULL, "IO/s",
		"the guest's write IO/s (fio's)", NULL, "guest-write-iops" },
	[XVBD_Q_GUEST_READ_MB_PER_S] = { "guest_read_mb_per_s", NULL, "MB/s",
		"the guest's read MB/s (fio's)", NULL, "guest-read-mbs" },
	[XVBD_Q_GUEST_WRITE_MB_PER_S] = { "guest_write_mb_per_s", NULL, "MB/s",
		"the guest's write MB/s (fio's)", NULL, "guest-write-mbs" },
	[XVBD_Q_GUEST_READ_CLAT_MS] =
		GUEST_CLAT("read", "", "the mean", "guest-read-clat"),
	[XVBD_Q_GUEST_READ_CLAT_P50_MS] =
		GUEST_CLAT("read", "p50_", "the median", "guest-read-p50"),
	[XVBD_Q_GUEST_READ_CLAT_P99_MS] =
		GUEST_CLAT("read", "p99_", "99th percentile", "guest-read-p99"),
	[XVBD_Q_GUEST_READ_CLAT_P99_9_MS] =
		GUEST_CLAT("read", "p99_9_", "99.9th percentile", "guest-read-p999"),
	[XVBD_Q_GUEST_READ_CLAT_MAX_MS] =
		GUEST_CLAT("read", "max_", "the longest", "guest-read-clat-max"),
	[XVBD_Q_GUEST_WRITE_CLAT_MS] =
		GUEST_CLAT("write", "", "the mean", "guest-write-clat"),
	[XVBD_Q_GUEST_WRITE_CLAT_P50_MS] =
		GUEST_CLAT("write", "p50_", "the median", "guest-write-p50"),
	[XVBD_Q_GUEST_WRITE_CLAT_P99_MS] =
		GUEST_CLAT("write", "p99_", "99th percentile", "guest-write-p99"),
	[XVBD_Q_GUEST_WRITE_CLAT_P99_9_MS] =
		GUEST_CLAT("write", "p99_9_", "99.9th percentile", "guest-write-p999"),
	[XVBD_Q_GUEST_WRITE_CLAT_MAX_MS] =
		GUEST_CLAT("write", "max_", "the longest", "guest-write-clat-max"),
	[XVBD_Q_BENCH_LOWER_1] = BENCH("lower", 1, "lower"),
	[XVBD_Q_BENCH_LOWER_2] = BENCH("lower", 2, "lower"),
	[XVBD_Q_BENCH_LOWER_3] = BENCH("lower", 3, "lower"),
	[XVBD_Q_BENCH_LOWER_4] = BENCH("lower", 4, "lower"),
	[XVBD_Q_BENCH_HIGHER_1] = BENCH("higher", 1, "higher"),
	[XVBD_Q_BENCH_HIGHER_2] = BENCH("higher", 2, "higher"),
	[XVBD_Q_BENCH_HIGHER_3] = BENCH("higher", 3, "higher"),
	[XVBD_Q_BENCH_HIGHER_4] = BENCH("higher", 4, "higher"),
	[XVBD_Q_COUNT] = { "count", NULL, "",
		"requests in a latency distribution", NULL, "" },
	[XVBD_Q_SUM_NS] = { "sum_ns", NULL, "ns",
		"a latency distribution's times summed (mean: sum_ns / "
		"count)", NULL, "" },
	[XVBD_Q_P50_NS] = { "p50_ns", NULL, "ns",
		"a latency distribution's median", NULL, "" },
	[XVBD_Q_P99_NS] = { "p99_ns", NULL, "ns",
		"a latency distribution's 99th percentile", NULL, "" },
	[XVBD_Q_P999_NS] = { "p999_ns", NULL, "ns",
		"a latency distribution's 99.9th percentile", NULL, "" },
	[XVBD_Q_MAX_NS] = { "max_ns", NULL, "ns",
		"a latency distribution's longest time", NULL, "" },
	[XVBD_Q_P50_MS] = { "p50_ms", NULL, "ms",
		"p50_ns / 10^6 (text tables, a guest's merged clat)",
		NULL, "" },
	[XVBD_Q_P90_MS] = { "p90_ms", NULL, "ms",
		"a guest's merged clat: its 90th percentile", NULL, "" },
	[XVBD_Q_P99_MS] = { "p99_ms", NULL, "ms",
		"p99_ns / 10^6", NULL, "" },
	[XVBD_Q_P99_9_MS] = { "p99_9_ms", NULL, "ms",
		"p999_ns / 10^6", NULL, "p999_ms" },
	[XVBD_Q_P99_99_MS] = { "p99_99_ms", NULL, "ms",
		"a guest's merged clat: its 99.99th percentile", NULL, "" },
	[XVBD_Q_MAX_MS] = { "max_ms", NULL, "ms",
		"max_ns / 10^6", NULL, "" },
	[XVBD_Q_MEAN_MS] = { "mean_ms", NULL, "ms",
		"sum_ns / count / 10^6", NULL, "" },
	[XVBD_Q_RELATIVE_ERROR] = { "relative_error", NULL, "",
		"largest relative error of a percentile read from the "
		"latency buckets (0.01: 1 %)", NULL, "" },
	[XVBD_Q_BACKWARDS] = { "backwards", NULL, "",
		"requests whose completion came before their start on the "
		"trace clock: left out (0 on a sound clock)", NULL, "" },
	[XVBD_Q_SELECTED_RUNS] = { "selected_runs", NULL, "",
		"runs a label selected", NULL, "" },
	[XVBD_Q_RUNS_WITH_LATENCY] = { "runs_with_latency", NULL, "",
		"of those, runs recorded with --latency", NULL, "" },
	[XVBD_Q_RUNS] = { "runs", NULL, "",
		"runs merged into a figure", NULL, "" },
	[XVBD_Q_INCOMPLETE] = { "incomplete", NULL, "",
		"of those runs, those whose latency was incomplete "
		"(events lost)", NULL, "" },
	[XVBD_Q_IOS] = { "ios", NULL, "",
		"completions in the guest's merged clat (fio's JSON+ "
		"bins)", NULL, "" },
	[XVBD_Q_MAX_BIN_MS] = { "max_bin_ms", NULL, "ms",
		"upper end of the largest fio JSON+ bin with a count",
		NULL, "" },
	[XVBD_Q_GUEST_MS] = { "guest_ms", NULL, "ms",
		"the guest's completion latency (fio's clat) at a "
		"percentile", NULL, "" },
	[XVBD_Q_DEVICE_MS] = { "device_ms", NULL, "ms",
		"the backing device's service time (d2c) at the same "
		"percentile", NULL, "" },
	[XVBD_Q_PV_PATH_MS] = { "pv_path_ms", NULL, "ms",
		"guest_ms - device_ms: time above the device (blkfront, "
		"the ring, blkback)", NULL, "" },
	[XVBD_Q_PV_PATH_PCT] = { "pv_path_pct", NULL, "%",
		"pv_path_ms in % of guest_ms", NULL, "" },
	[XVBD_Q_DEVICE_REQUESTS] = { "device_requests", NULL, "",
		"requests in the device's distribution pv_path compares",
		NULL, "" },
	[XVBD_Q_CPU_THRESHOLD_PCT] = { "cpu_threshold_pct", NULL, "%",
		"other domains' CPU above which a run is flagged, % of "
		"the host (--interference-cpu)", NULL, "" },
	[XVBD_Q_HOST_CPUS] = { "host_cpus", NULL, "",
		"the host's physical CPUs", NULL, "" },
	[XVBD_Q_OTHER_DOMAINS] = { "other_domains", NULL, "",
		"domains other than the guest and dom0 seen during a "
		"run", NULL, "" },
	[XVBD_Q_HOST_PCT] = { "host_pct", NULL, "%",
		"other domains' CPU time in % of all the host's CPUs",
		NULL, "" },
	[XVBD_Q_DEVICE_IOS] = { "device_ios", NULL, "",
		"I/Os the backing device completed during a run (its "
		"diskstats)", NULL, "" },
	[XVBD_Q_VBD_REQUESTS] = { "vbd_requests", NULL, "",
		"requests blkback took from the VBD's rings during a "
		"run", NULL, "" },
	[XVBD_Q_FOREIGN_IOS] = { "foreign_ios", NULL, "",
		"device_ios beyond vbd_requests: I/O on the device that "
		"was not the VBD's", NULL, "" },
	[XVBD_Q_DEVICE_SECTORS] = { "device_sectors", NULL, "sectors",
		"512-byte sectors the backing device moved during a run",
		NULL, "" },
	[XVBD_Q_VBD_SECTORS] = { "vbd_sectors", NULL, "sectors",
		"512-byte sectors of the VBD's requests during a run",
		NULL, "" },
	[XVBD_Q_FOREIGN_SECTORS] = { "foreign_sectors", NULL, "sectors",
		"device_sectors beyond vbd_sectors", NULL, "" },
	[XVBD_Q_FOREIGN_PCT] = { "foreign_pct", NULL, "%",
		"the device's I/O not the VBD's, in % of its own "
		"(foreign_of says of what)", NULL, "" },
	[XVBD_Q_GUEST_READ_IOS] = { "guest_read_ios", NULL, "",
		"reads the guest's workload completed (fio's)", NULL, "" },
	[XVBD_Q_GUEST_WRITE_IOS] = { "guest_write_ios", NULL, "",
		"writes the guest's workload completed", NULL, "" },
	[XVBD_Q_GUEST_READ_BYTES] = { "guest_read_bytes", NULL, "bytes",
		"bytes the guest's workload read", NULL, "" },
	[XVBD_Q_GUEST_WRITE_BYTES] = { "guest_write_bytes", NULL, "bytes",
		"bytes the guest's workload wrote", NULL, "" },
	[XVBD_Q_GUEST_RUNTIME_S] = { "guest_runtime_s", NULL, "s",
		"the workload's own runtime (fio's, the guest's clock)",
		NULL, "" },
	[XVBD_Q_BLKBACK_READ_REQUESTS] = { "blkback_read_requests", NULL, "",
		"read requests blkback served during a run (rd_req's "
		"change)", NULL, "" },
	[XVBD_Q_BLKBACK_WRITE_REQUESTS] = { "blkback_write_requests", NULL, "",
		"write requests blkback served (wr_req's change)", NULL, "" },
	[XVBD_Q_BLKBACK_READ_BYTES] = { "blkback_read_bytes", NULL, "bytes",
		"bytes blkback read for the guest (rd_sect's change x "
		"512)", NULL, "" },
	[XVBD_Q_BLKBACK_WRITE_BYTES] = { "blkback_write_bytes", NULL, "bytes",
		"bytes blkback wrote for the guest (wr_sect's change x "
		"512)", NULL, "" },
	[XVBD_Q_DEVICE_READ_BYTES] = { "device_read_bytes", NULL, "bytes",
		"bytes the backing device read during a run (its "
		"diskstats)", NULL, "" },
	[XVBD_Q_DEVICE_WRITE_BYTES] = { "device_write_bytes", NULL, "bytes",
		"bytes the backing device wrote during a run", NULL, "" },
	[XVBD_Q_SIZE_BYTES] = { "size_bytes", NULL, "bytes",
		"a VBD's or disk's size", NULL, "" },
	[XVBD_Q_INDIRECT_SEGMENTS_OFFERED] = {
		"indirect_segments_offered", NULL, "",
		"segments per indirect request the backend offers "
		"(feature-max-indirect-segments)", NULL, "" },
};

/* name is a word of the blank-separated list? */
static bool in_list(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p = list;

	while (p && *p) {
		const char *end = strchr(p, ' ');
		size_t wl = end ? (size_t)(end - p) : strlen(p);

		if (wl == len && !strncmp(p, name, len))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

int xvbd_q_find(const char *name, bool *old)
{
	int q;

	if (old)
		*old = false;
	if (!name || !*name)
		return -1;
	for (q = 0; q < XVBD_Q_N; q++)
		if (!strcmp(xvbd_quantities[q].name, name))
			return q;
	for (q = 0; q < XVBD_Q_N; q++) {
		if (!in_list(xvbd_quantities[q].old, name))
			continue;
		if (old)
			*old = true;
		return q;
	}
	return -1;
}

const char *xvbd_q_abbrev(const char *key)
{
	int q;

	for (q = 0; key && q < XVBD_Q_N; q++)
		if (!strcmp(xvbd_quantities[q].name, key))
			return xvbd_quantities[q].abbrev;
	return NULL;
}
