/*
 * tstack.h - the toolstack: libxl context, domain lookup, disk records.
 *
 * Security rule: a VBD's backend path comes from libxl's own record
 * (/libxl/<domid>/device/vbd/<devid>/backend, dom0-only), never from
 * the guest-writable frontend "backend" key.
 * Functions return 0 / negative errno.
 */
#ifndef XVBD_TSTACK_H
#define XVBD_TSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/xen/pvpath.h"

struct xvbd_tstack;

/* verbosity 0: XTL_ERROR; 1 warnings; 2 info; 3+ debug.  NULL on error. */
struct xvbd_tstack *xvbd_tstack_open(int verbosity);
void xvbd_tstack_close(struct xvbd_tstack *ts);	/* NULL ok */

/*
 * Domain by name or decimal id.  -EINVAL: given as a path (contains
 * '/'), a usage error; -ENOENT: no such domain.
 * *name is malloc'd (the domain's name, or the id if it has none).
 */
int xvbd_tstack_domain_lookup(struct xvbd_tstack *ts, const char *spec,
			      uint32_t *domid, char **name);
/*
 * The lookup's syntax alone, before any connection: 0, or -EINVAL for a
 * spec it would refuse as a usage error.
 */
int xvbd_tstack_domain_spec_check(const char *spec);
/* The "why" for a lookup error, and its exit code (2 for -EINVAL). */
const char *xvbd_tstack_lookup_why(int err);
int xvbd_tstack_lookup_exit(int err);
/* All running domains, ascending domid; *domids malloc'd. */
int xvbd_tstack_domains(struct xvbd_tstack *ts, uint32_t **domids,
			size_t *n);

/* One disk as the toolstack recorded it. */
struct xvbd_disk {
	char *vdev;		/* as configured ("xvda") */
	uint32_t devid;
	uint32_t backend_domid;
	char *backend_path;	/* libxl record; NULL if unavailable */
	char *frontend_path;
	char *target;		/* pdev_path: the "params" given to libxl */
	bool readwrite;
};

int xvbd_tstack_disks(struct xvbd_tstack *ts, uint32_t domid,
		      struct xvbd_disk **disks, size_t *n);
void xvbd_tstack_disks_free(struct xvbd_disk *disks, size_t n);
/*
 * The disks of domid among devids (as xvbd_tstack_disks, in devids'
 * order; a devid the domain has no disk of is left out).
 */
int xvbd_tstack_disks_of(struct xvbd_tstack *ts, uint32_t domid,
			 const uint32_t *devids, size_t ndevids,
			 struct xvbd_disk **disks, size_t *n);
/*
 * The disks of domid (as xvbd_tstack_disks) and in *found the first one
 * whose devid is devid.  -ENOENT: the domain has no such disk; on any
 * error nothing is returned.
 */
int xvbd_tstack_disk_find(struct xvbd_tstack *ts, uint32_t domid,
			  uint32_t devid, struct xvbd_disk **disks, size_t *n,
			  struct xvbd_disk **found);

/* ---- creating a guest from an xl config (src/tstack_create.c) ---- */

/* What xvbd needs of an xl config, as libxlutil parses it. */
struct xvbd_xlcfg {
	char *name;
	char *type;		/* type=, NULL if absent */
	char *builder;		/* legacy builder= */
	char *kernel;		/* direct kernel boot */
	char *extra, *cmdline;	/* NULL if absent */
	uint64_t memory_mib;	/* 0: not set */
	uint64_t vcpus;		/* 0: not set (one) */
	char **vdevs;		/* vdev of each disk= entry */
	size_t nvdevs;
	/* On -EINVAL: libxlutil's first message ("FILE:LINE: config
	 * parsing error near ..."), or why the file is not a config. */
	char error[256];
};

/*
 * Read an xl config (a regular file: a directory or FIFO would make
 * libxlutil's scanner exit the program).  -EINVAL: cfg->error says why.
 */
int xvbd_tstack_xlcfg_read(const char *path, struct xvbd_xlcfg *cfg);
void xvbd_tstack_xlcfg_free(struct xvbd_xlcfg *cfg);
/* PV or PVH with kernel=: a kernel command line xvbd can extend. */
bool xvbd_tstack_xlcfg_is_pv_direct(const struct xvbd_xlcfg *cfg);
int xvbd_tstack_name_to_domid(struct xvbd_tstack *ts, const char *name,
			      uint32_t *domid);
/*
 * `xl create [-p] cfg_path` (argv, no shell), then the new domain's id
 * by name.  -EIO when xl failed (*xl_status: its exit status).
 */
int xvbd_tstack_create(struct xvbd_tstack *ts, const char *cfg_path,
		       const char *name, bool paused, uint32_t *domid,
		       int *xl_status);
int xvbd_tstack_create_paused(struct xvbd_tstack *ts, const char *cfg_path,
			      const char *name, uint32_t *domid,
			      int *xl_status);
int xvbd_tstack_pause(struct xvbd_tstack *ts, uint32_t domid);
int xvbd_tstack_unpause(struct xvbd_tstack *ts, uint32_t domid);
/* Destroy domid and its devices (libxl_domain_destroy); -ENOENT: gone. */
int xvbd_tstack_domain_destroy(struct xvbd_tstack *ts, uint32_t domid);

struct xvbd_dominfo {
	bool paused, shutdown, dying;
	/* Shut down: Xen's reason ("poweroff", "reboot", "suspend",
	 * "crash", "watchdog", "soft_reset"); else NULL. */
	const char *shutdown_reason;
	/* Paused guests: wall-clock seconds libxl built it
	 * (/vm/<uuid>/start_time); 0: not known or not asked. */
	uint64_t start_s;
	uint64_t memory_kib, max_memory_kib;
	uint32_t vcpus;
	/* Xen's handle of the domain: with the domid, which domain this
	 * is (a domid is reused by the next domain created) */
	uint8_t uuid[16];
};
/* -ENOENT: no such domain. */
int xvbd_tstack_domain_info(struct xvbd_tstack *ts, uint32_t domid,
			    struct xvbd_dominfo *info);

/* ---- disk add/remove (attach, detach) ---- */

/* One disk to add: a libxl_device_disk parsed from an xl disk spec. */
struct xvbd_tstack_disk;

/* What a parsed spec says; strings borrowed from the disk. */
struct xvbd_tstack_disk_info {
	const char *vdev;
	const char *target;	/* pdev_path; NULL for an empty cdrom */
	const char *script;	/* NULL: the default ("block") */
	const char *format;	/* "raw", "qcow2", ... */
	const char *backend;	/* "unknown" until libxl picks one */
	bool backend_dom0;	/* no backend= driver domain */
	const char *backend_domname;	/* backend=, as written; NULL */
	bool readwrite;
	bool is_cdrom;
};

/*
 * Parse an xl disk spec with libxlutil (xlu_disk_parse).  On -EINVAL,
 * why holds libxlutil's first message line.
 */
int xvbd_tstack_disk_parse(const char *spec, struct xvbd_tstack_disk **out,
			   char *why, size_t why_len);
void xvbd_tstack_disk_free(struct xvbd_tstack_disk *disk);	/* NULL ok */
void xvbd_tstack_disk_describe(const struct xvbd_tstack_disk *disk,
			       struct xvbd_tstack_disk_info *info);
int xvbd_tstack_disk_set_vdev(struct xvbd_tstack_disk *disk, const char *vdev);
/*
 * The hotplug script libxl runs for the disk (backend key "script"); a
 * relative name is resolved in Xen's script directory by libxl.
 */
int xvbd_tstack_disk_set_script(struct xvbd_tstack_disk *disk,
				const char *script);

/*
 * Add n disks to domid concurrently: one libxl asynchronous operation
 * each, at most max_inflight at a time, in this one context; completions
 * collected with libxl_event_wait.  Returns when all have finished
 * (backend hotplug done); errs[i] is 0 or -EIO for disk i.  0 if all
 * succeeded, else -EIO.
 */
int xvbd_tstack_disks_add(struct xvbd_tstack *ts, uint32_t domid,
			  struct xvbd_tstack_disk *const *disks, size_t n,
			  size_t max_inflight, int *errs);

/*
 * Remove the disk vdev of domid (libxl_device_disk_remove: waits for the
 * backend to close and the hotplug script to release it), or with force
 * tear it down without waiting for the guest (libxl_device_disk_destroy).
 * -ENOENT: no such disk.
 */
int xvbd_tstack_disk_remove(struct xvbd_tstack *ts, uint32_t domid,
			    const char *vdev, bool force);

/*
 * Disks of all domains whose target is prefix or lies below prefix/;
 * counted in *count.
 */
int xvbd_tstack_targets_under(struct xvbd_tstack *ts, const char *prefix,
			      size_t *count);

/* ---- PV or emulated disks (src/tstack_pv.c) ---- */

/* An xl config's disk-path settings, as libxlutil reads them. */
struct xvbd_pvcfg {
	struct xvbd_xlcfg xl;		/* name, kernel, extra, disks... */
	struct xvbd_pv_facts facts;	/* its strings point into xl */
};

/*
 * Parse data (len bytes of an xl config; source names it in messages)
 * with libxlutil.  -EINVAL with one line in why: libxlutil's first
 * message ("guest.cfg:3: config parsing error near ..."), or what xl
 * would refuse (no name=, an unknown type=, xen_platform_pci not a
 * number).
 */
int xvbd_tstack_pvcfg_parse(const char *source, const char *data,
			    size_t len, struct xvbd_pvcfg *out, char *why,
			    size_t why_len);
void xvbd_tstack_pvcfg_free(struct xvbd_pvcfg *cfg);

/*
 * Do two xl config texts hold the same settings as libxlutil reads them
 * (every setting either text assigns: its value, lists item by item),
 * apart from the keys in except?  0: the same; 1: not, the first
 * setting that differs named in why; -EINVAL: a text does not parse.
 * For pv (an edit changes nothing else) and A/B runs (two configs that
 * differ only in xen_platform_pci are one comparison).
 */
int xvbd_tstack_xlcfg_compare(const char *a, size_t alen, const char *b,
			      size_t blen, const char *const *except,
			      size_t nexcept, char *why, size_t why_len);

/* A running domain's disk-path settings, from libxl's records. */
struct xvbd_pvdom {
	bool stored;			/* libxl had its configuration */
	struct xvbd_pv_facts facts;	/* type from the hypervisor */
	char *cmdline;			/* facts.cmdline points here */
	bool uptime_known;
	uint64_t uptime_s;		/* since libxl built it */
};

/* -ENOENT: no such domain. */
int xvbd_tstack_pvdom_read(struct xvbd_tstack *ts, uint32_t domid,
			   struct xvbd_pvdom *out);
void xvbd_tstack_pvdom_free(struct xvbd_pvdom *d);
/*
 * Ask domid to shut down cleanly: its PV control node, or for an HVM
 * guest without PV drivers the ACPI power button (as xl shutdown -F).
 */
int xvbd_tstack_shutdown(struct xvbd_tstack *ts, uint32_t domid);
/*
 * Wait until domid is gone.  A domain that shut down but stays (no xl
 * process reaps it) is destroyed after a grace time.  -ETIMEDOUT.
 */
int xvbd_tstack_wait_gone(struct xvbd_tstack *ts, uint32_t domid,
			  int timeout_ms);

/* ---- sampling (src/tstack_stats.c) ---- */

/* One domain's counters, as the stats sampler reads them. */
struct xvbd_domstat {
	uint32_t domid;
	uint8_t uuid[16];
	uint64_t cpu_ns;	/* cumulative, all vCPUs */
	uint32_t vcpus_online;
	uint64_t mem_bytes;
};

/*
 * Reading every domain's counters in one hypercall (libxenctrl's
 * getdomaininfolist; libxl_list_domain costs several system calls more
 * per domain).  open/close once; read per sample: more than cap domains
 * gives -ENOSPC and in *n a larger cap to retry with.
 */
struct xvbd_domstats;
int xvbd_tstack_domstats_open(struct xvbd_domstats **out);
int xvbd_tstack_domstats_read(struct xvbd_domstats *r,
			      struct xvbd_domstat *buf, size_t cap, size_t *n);
void xvbd_tstack_domstats_close(struct xvbd_domstats *r);	/* NULL ok */
/* Cumulative time of each vCPU of domid, indexed by vCPU id. */
int xvbd_tstack_vcpu_times(struct xvbd_tstack *ts, uint32_t domid,
			   uint64_t *cpu_ns, size_t cap, size_t *n);
/* -ENOENT: no such domain or no name. */
int xvbd_tstack_domain_name(struct xvbd_tstack *ts, uint32_t domid,
			    char *buf, size_t len);

/* ---- facts for A/B fingerprints (src/tstack_facts.c) ---- */

/* "4.17.7", as `xl info` prints xen_version. */
int xvbd_tstack_xen_version(struct xvbd_tstack *ts, char *buf, size_t len);
/* Physical CPUs of the host (physinfo nr_cpus). */
int xvbd_tstack_host_cpus(struct xvbd_tstack *ts, uint32_t *cpus);
/*
 * The kernel command line libxl built the domain with (its stored
 * configuration's b_info.cmdline: xl's cmdline=, or root= and extra=
 * joined), *cmdline malloc'd, NULL when it has none (a guest that boots
 * its own kernel).  -ENOENT: no such domain or no stored configuration.
 */
int xvbd_tstack_domain_cmdline(struct xvbd_tstack *ts, uint32_t domid,
			       char **cmdline);
/* "pv", "pvh" or "hvm"; -ENOENT: no such domain. */
int xvbd_tstack_domain_type(struct xvbd_tstack *ts, uint32_t domid,
			    const char **type);
/*
 * The vCPUs' hard affinity: "all" (unrestricted), a CPU list ("0-1,3")
 * when every vCPU has the same, else "vcpu0:0 vcpu1:2-3".
 */
int xvbd_tstack_vcpu_pinning(struct xvbd_tstack *ts, uint32_t domid,
			     char *buf, size_t len);

#endif /* XVBD_TSTACK_H */
