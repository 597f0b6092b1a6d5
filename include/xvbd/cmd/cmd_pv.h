/*
 * cmd_pv.h - between the two files of `xvbd pv` only: src/cmd_pv.c
 * (options, on/off) and src/cmd_pv_status.c (status).
 */
#ifndef XVBD_CMD_PV_H
#define XVBD_CMD_PV_H

#include <stdbool.h>
#include <stdint.h>

#include "xvbd/base/cfgfile.h"
#include "xvbd/cmd/cmd.h"
#include "xvbd/xen/pvpath.h"
#include "xvbd/xen/tstack.h"

enum pv_action { PV_STATUS, PV_ON, PV_OFF };

struct pv_opts {
	const char *target;	/* <Domain|CONFIG_FILE> */
	bool is_file;
	enum pv_action action;
	const char *config;	/* --config: a domain's file */
	bool linux_unplug, reboot;
	int timeout_s;		/* --reboot: for the shutdown */
	uint64_t settle_s;	/* status: HVM disks' settle time */
};

/* A config file read, parsed and maybe edited. */
struct pv_edit {
	struct xvbd_cfgfile file;
	struct xvbd_pvcfg cfg;		/* libxlutil's reading of file */
	struct xvbd_pv_plan plan;
	char *new_text;
	char *diff;
	char *backup;			/* written: where the old bytes are */
	bool written;
};

struct pv_reboot {
	bool wanted, done;
	uint32_t new_domid;
	const char *why;		/* wanted, not done: why not */
};

/* Read and parse path into e; prints the error (and frees e), returns
 * the exit code. */
int pv_load(const char *path, struct pv_edit *e);
void pv_edit_free(struct pv_edit *e);

/*
 * An edit's turn: the lock of the file path resolves to, taken before it
 * is read (xvbd_file_lock), so that two edits of one file cannot lose
 * one another's change.  A path that does not resolve safely gets no
 * lock: pv_load then says why.  fd -1: none held.
 */
struct pv_lock {
	char *real;
	int fd;
};
int pv_lock(struct xvbd_ctx *ctx, const char *path, struct pv_lock *lk);
void pv_unlock(struct pv_lock *lk);

int pv_file_status(struct xvbd_ctx *ctx, const struct pv_opts *po);
int pv_domain_status(struct xvbd_ctx *ctx, const struct pv_opts *po);

#endif /* XVBD_CMD_PV_H */
