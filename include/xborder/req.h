/*
 * req.h: the pipeline of one request (req.c), from the parsed request to
 * the answer written and logged.
 */
#ifndef XBORDER_REQ_H
#define XBORDER_REQ_H

#include "xborder/request.h"

/*
 * Runs the whole pipeline for one request: parse, route (404/405),
 * authenticate (401/429), permission (403), platform scope, body
 * (400/413/415), handler; then writes the response and logs one line.
 */
void req_dispatch(struct req *req);

#endif
