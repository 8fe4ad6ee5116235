/* A minimal unary gRPC client on the gRPC core C API (used by cuzk-bench). One channel per client;
 * each call uses its own completion queue, so calls may run from several threads at once. */
#ifndef CZ_SERVER_CLIENT_H
#define CZ_SERVER_CLIENT_H

#include <stddef.h>
#include <stdint.h>

typedef struct cz_client cz_client;

/* addr: unix:///abs/path, http://host:port or host:port. */
int cz_client_open(cz_client **out, const char *addr);
void cz_client_close(cz_client *c);
/* method: "/cuzk.v1.ProvingEngine/Prove". timeout_ms 0 = none. Returns 0 with *status (grpc_status_code);
 * on OK *resp (malloc'ed) holds the response bytes; msg gets the status details. */
int cz_client_call(cz_client *c, const char *method, const uint8_t *req, size_t len, uint64_t timeout_ms,
                   uint8_t **resp, size_t *resp_len, int *status, char *msg, size_t msgcap);

#endif
