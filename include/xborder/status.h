/*
 * status.h: the operator's status document, the same for GET /status and
 * `xborderctl status`: the xborder-fcgi workers' counters one by one
 * (stats.h) and summed, the job queue and the webhook backlog.
 */
#ifndef XBORDER_STATUS_H
#define XBORDER_STATUS_H

#include <json-c/json.h>

struct conf;
struct db;

/*
 * Builds the document.  db NULL (or failing) leaves the database parts
 * null with "database": "unavailable"; no stats_file leaves "workers"
 * empty and "counters" null.
 */
json_object *status_render(const struct conf *conf, struct db *db);

#endif
