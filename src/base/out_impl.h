/*
 * out_impl.h - the out layer's own state, shared by its files only:
 * out.c (the calls, JSON, text) and out_rows.c (CSV and Prometheus,
 * which see the same calls as rows of cells).
 */
#ifndef XVBD_OUT_IMPL_H
#define XVBD_OUT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <yajl/yajl_gen.h>

#include "xvbd/base/out.h"

#define OUT_DEPTH_MAX	32

enum cell_kind { C_NULL, C_STR, C_UINT, C_FIXED, C_BOOL };

/* One field as the row modes keep it: its text and, for numbers, value. */
struct out_cell {
	char *key;
	char *text;		/* as CSV prints it ("" for null) */
	enum cell_kind kind;
	uint64_t u;		/* C_UINT */
	double d;		/* C_FIXED */
	int depth;		/* context cells: the object that set them */
};

struct out_row {
	struct out_cell *cells;
	size_t n, cap;
};

struct out_rows {
	/* What each container open at a depth is (1-based depth). */
	bool is_arr[OUT_DEPTH_MAX + 1];
	int row_depth;			/* the open row's object; 0: none */
	struct out_row row;		/* the open row */
	struct out_row context;		/* fields of enclosing objects */
	struct out_row *kept;		/* Prometheus: every row, in order */
	size_t nkept, capkept;
	const char *const *columns;	/* CSV */
	size_t ncolumns;
	bool header;
	const struct xvbd_out_prom_metric *metrics;	/* Prometheus */
	size_t nmetrics;
	const char *const *label_keys;
	size_t nlabels;
};

enum node_kind { N_SCALAR, N_OBJ, N_ARR };

struct node {
	enum node_kind kind;
	char *key;
	char *text;		/* N_SCALAR */
	char *note;
	struct node **kids;
	size_t nkids, cap;
	struct node *parent;
};

struct xvbd_out {
	FILE *stream;
	enum xvbd_out_mode mode;
	int wrap_cols;		/* text: wrap values and items; 0 never */
	int verbose;		/* the reader asked for more (-v) */
	bool json;			/* mode == XVBD_OUT_JSON */
	bool failed;
	bool started;
	bool done;
	bool finished;		/* xvbd_out_finish*() ran: once only */
	int depth;
	yajl_gen gen;
	/* JSON is kept until finish: a failure adds to the document */
	char *jbuf;
	size_t jlen, jcap;
	bool top_obj_open;	/* the top-level object's close, deferred */
	bool top_is_arr;
	bool status_always;	/* failed/msg/rc also on success */
	char *status_msg;	/* msg on success */
	struct node *root;	/* text */
	struct node *cur;	/* text: open container */
	struct node *last;	/* text: last emitted field, for notes */
	const struct xvbd_out_label *labels;
	struct out_rows rows;		/* CSV, Prometheus */
};



bool out_rows_mode(const struct xvbd_out *o);
void out_rows_begin(struct xvbd_out *o, bool arr);
void out_rows_end(struct xvbd_out *o);
void out_rows_field(struct xvbd_out *o, const char *key,
		    enum cell_kind kind, const char *text, uint64_t u,
		    double d);
void out_rows_finish(struct xvbd_out *o);
void out_rows_free(struct xvbd_out *o);

#endif /* XVBD_OUT_IMPL_H */
