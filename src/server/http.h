/* HTTP status server on daemon.status_listen: GET /status (JSON, cuzk's StatusSnapshot shape) and
 * GET /metrics (Prometheus text, the same as GetMetrics). */
#ifndef CZ_SERVER_HTTP_H
#define CZ_SERVER_HTTP_H

#include "engine/engine.h"

typedef struct cz_http_server cz_http_server;

/* listen: IP:port ([v6]:port accepted). */
int cz_http_start(cz_http_server **out, cz_engine *e, const char *listen);
/* daemon.status_listen as cz_http_start takes it (IP:port, [IPv6]:port), without binding: 0 or CZ_EINVAL. */
int cz_http_check_listen(const char *listen);
void cz_http_stop(cz_http_server *h);
/* The /status document (malloc'ed JSON). */
char *cz_status_json(cz_engine *e);

#endif
