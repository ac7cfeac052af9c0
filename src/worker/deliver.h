/*
 * deliver.h: xborder-worker's webhook delivery.  Several deliveries run at
 * once (libcurl multi), so one platform's slow endpoint holds at most a
 * few slots while the others keep going.
 */
#ifndef XBORDER_WORKER_DELIVER_H
#define XBORDER_WORKER_DELIVER_H

struct conf;
struct db;
struct deliveries;

struct deliveries *deliver_new(const struct conf *conf);

/*
 * Records the outcome of every delivery that ended and, when claim is set
 * and slots are free, claims due events and starts their calls.  Returns
 * how many deliveries are in flight.
 */
int deliver_pump(struct deliveries *d, struct db *db, int claim);

/* Waits up to ms for network activity of the deliveries in flight. */
void deliver_wait(struct deliveries *d, int ms);

/* Drops the deliveries still in flight (their leases bring them back). */
void deliver_free(struct deliveries *d);

#endif
