/* The cuzk.v1.ProvingEngine gRPC service on the gRPC core C API (completion queue + one handler thread
 * per call, so blocking RPCs such as Prove and AwaitProof never stall the queue). */
#ifndef CZ_SERVER_RPC_H
#define CZ_SERVER_RPC_H

#include "engine/engine.h"

#define CZ_RPC_MAX_MESSAGE (256 << 20)

typedef struct cz_rpc_server cz_rpc_server;

/* listen: comma-separated unix:///abs/path or IP:port addresses. */
int cz_rpc_server_start(cz_rpc_server **out, cz_engine *e, const char *listen);
/* daemon.listen's addresses (comma-separated) as cz_rpc_server_start takes them, without binding: 0 or CZ_EINVAL. */
int cz_rpc_check_listen(const char *listen);
/* Stops accepting calls. Call before cz_engine_shutdown so no new job arrives. */
void cz_rpc_server_stop_accepting(cz_rpc_server *s);
/* After the engine has resolved every job: waits for the handlers, shuts the server down, frees it. */
void cz_rpc_server_destroy(cz_rpc_server *s);

/* Maps an engine/CZ_E* code to a grpc_status_code. */
int cz_rpc_status_from_rc(int rc);
/* The engine-side check of a PoRep C1 wrapper ({"SectorNum","Phase1Out" base64,"SectorSize"}). */
int cz_c1_wrapper_check(const uint8_t *buf, size_t len, uint64_t sector_size);

#endif
