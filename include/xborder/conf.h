/*
 * conf.h: the one configuration file, xborder.conf (key = value).
 */
#ifndef XBORDER_CONF_H
#define XBORDER_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "xborder/util.h"

/* The most nodes db_nodes may name. */
#define CONF_DB_NODES_MAX 8

/* Another node of a Galera cluster (db_nodes): a socket, or host and port. */
struct conf_node {
	char		*socket;	/* an absolute path, or NULL */
	char		*host;		/* else this host ... */
	unsigned	 port;		/* ... and port; 0: db_port */
};

struct conf {
	char		*db_socket;	/* "": use db_host/db_port */
	char		*db_host;
	unsigned	 db_port;
	char		*db_user;
	char		*db_password;
	char		*db_admin_user;	/* xborderctl migrate's; "": db_user */
	char		*db_admin_password;
	char		*db_name;
	unsigned	 db_sync_wait;	/* wsrep_sync_wait of every session; 0: the server's */
	unsigned	 db_read_timeout;	/* seconds a connection waits for an answer */
	unsigned	 ctl_read_timeout;	/* ... xborderctl's (its db_read_timeout) */
	struct conf_node db_nodes[CONF_DB_NODES_MAX];	/* the cluster's other nodes */
	size_t		 db_nnodes;
	char		*listen;	/* "unix:/path" or "host:port" */
	unsigned	 socket_mode;
	unsigned	 workers;
	uint64_t	 max_requests;	/* 0: never recycle */
	uint32_t	 argon2_t;
	uint32_t	 argon2_m;	/* KiB */
	uint32_t	 argon2_p;
	char		*base_path;	/* "" or "/prefix" */
	enum log_level	 log_level;
	char		*log_file;	/* "": stderr (the journal under systemd) */
	int		 webhook_allow_private;
	int64_t		 review_window;	/* seconds */
	int64_t		 idempotency_lease;	/* seconds a RUNNING claim is its own */
	char		*webhook_signing_key;	/* PEM file of the Ed25519 key; "": none */
	int64_t		 webhook_retry_base;	/* seconds before the first retry */
	int64_t		 webhook_retry_max;	/* longest pause between attempts */
	int64_t		 webhook_retry_window;	/* seconds of retrying before FAILED */
	int64_t		 invariant_interval;	/* seconds between the worker's checks; 0 none */
	int64_t		 invariant_lag;		/* seconds a change waits before it is checked */
	int64_t		 list_anchor_step;	/* rows between two anchors of deep pages; 0 none */
	int64_t		 list_anchor_delay;	/* seconds a row waits before it is an anchor */
	unsigned	 worker_shard;	/* worker_shard = K/N: this worker's K ... */
	unsigned	 worker_shards;	/* ... of N (1: every platform's jobs) */
	char		*schema_dir;
	char		*openapi_file;	/* served as GET /openapi.json */
	char		*stats_file;	/* the workers' counters (stats.h); "": none */
	unsigned char	 fingerprint_key[32];	/* keyed hash of account numbers */
	int		 has_fingerprint_key;
};

/* Fills c with the built-in defaults (caller frees with conf_free). */
void conf_defaults(struct conf *c);

/*
 * Parses the text of a configuration file into c, which must hold the
 * defaults.  On error returns -1 and writes "LINE: message" to err.
 */
int conf_parse(struct conf *c, const char *text, char *err, size_t errlen);

/*
 * Loads the file at path: defaults, then its contents.  On error returns -1
 * with "PATH:LINE: message" (or the I/O error) in err.
 */
int conf_load(struct conf *c, const char *path, char *err, size_t errlen);

/*
 * Parses the file at path into c, over what c holds already (defaults and
 * earlier files): a key it sets replaces the earlier value.  Errors as for
 * conf_load.
 */
int conf_load_more(struct conf *c, const char *path, char *err, size_t errlen);

/* Releases every string of c. */
void conf_free(struct conf *c);

#endif
