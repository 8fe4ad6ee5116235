#include "server/client.h"

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "server/rpc.h"

struct cz_client {
    grpc_channel *ch;
};

int cz_client_open(cz_client **out, const char *addr) {
    char target[600];
    if (!strncmp(addr, "http://", 7)) snprintf(target, sizeof target, "dns:///%s", addr + 7);
    else if (!strncmp(addr, "unix:", 5) || strstr(addr, "://")) snprintf(target, sizeof target, "%s", addr);
    else snprintf(target, sizeof target, "dns:///%s", addr);
    cz_client *c = calloc(1, sizeof *c);
    if (!c) return cz_error(CZ_ENOMEM, "out of memory");
    grpc_arg args[2];
    args[0].type = args[1].type = GRPC_ARG_INTEGER;
    args[0].key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    args[1].key = GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
    args[0].value.integer = args[1].value.integer = CZ_RPC_MAX_MESSAGE;
    grpc_channel_args ca = {2, args};
    grpc_channel_credentials *cr = grpc_insecure_credentials_create();
    c->ch = grpc_channel_create(target, cr, &ca);
    grpc_channel_credentials_release(cr);
    if (!c->ch) {
        free(c);
        return cz_error(CZ_EIO, "cannot create a channel to %s", addr);
    }
    *out = c;
    return 0;
}

void cz_client_close(cz_client *c) {
    if (!c) return;
    grpc_channel_destroy(c->ch);
    free(c);
}

int cz_client_call(cz_client *c, const char *method, const uint8_t *req, size_t len, uint64_t timeout_ms,
                   uint8_t **resp, size_t *resp_len, int *status, char *msg, size_t msgcap) {
    *resp = NULL, *resp_len = 0, msg[0] = 0;
    grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
    gpr_timespec dl = timeout_ms ? gpr_time_add(gpr_now(GPR_CLOCK_REALTIME),
                                                gpr_time_from_millis((int64_t)timeout_ms, GPR_TIMESPAN))
                                 : gpr_inf_future(GPR_CLOCK_REALTIME);
    grpc_slice m = grpc_slice_from_copied_string(method);
    grpc_call *call = grpc_channel_create_call(c->ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, m, NULL, dl, NULL);
    grpc_slice_unref(m);
    grpc_slice body = grpc_slice_from_copied_buffer((const char *)req, len);
    grpc_byte_buffer *send = grpc_raw_byte_buffer_create(&body, 1), *recv = NULL;
    grpc_slice_unref(body);
    grpc_metadata_array imd, tmd;
    grpc_metadata_array_init(&imd);
    grpc_metadata_array_init(&tmd);
    grpc_status_code st = GRPC_STATUS_UNKNOWN;
    grpc_slice details = grpc_empty_slice();
    grpc_op ops[6];
    memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = send;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &imd;
    ops[4].op = GRPC_OP_RECV_MESSAGE;
    ops[4].data.recv_message.recv_message = &recv;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &tmd;
    ops[5].data.recv_status_on_client.status = &st;
    ops[5].data.recv_status_on_client.status_details = &details;
    int rc = 0;
    if (grpc_call_start_batch(call, ops, 6, (void *)1, NULL) != GRPC_CALL_OK) {
        rc = cz_error(CZ_EIO, "grpc_call_start_batch failed");
    } else {
        grpc_completion_queue_pluck(cq, (void *)1, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        *status = (int)st;
        char *d = grpc_slice_to_c_string(details);
        snprintf(msg, msgcap, "%s", d);
        gpr_free(d);
        if (st == GRPC_STATUS_OK && recv) {
            grpc_byte_buffer_reader rd;
            grpc_byte_buffer_reader_init(&rd, recv);
            grpc_slice s = grpc_byte_buffer_reader_readall(&rd);
            grpc_byte_buffer_reader_destroy(&rd);
            *resp_len = GRPC_SLICE_LENGTH(s);
            *resp = malloc(*resp_len ? *resp_len : 1);
            if (*resp) memcpy(*resp, GRPC_SLICE_START_PTR(s), *resp_len);
            else rc = cz_error(CZ_ENOMEM, "out of memory");
            grpc_slice_unref(s);
        }
    }
    if (recv) grpc_byte_buffer_destroy(recv);
    grpc_byte_buffer_destroy(send);
    grpc_slice_unref(details);
    grpc_metadata_array_destroy(&imd);
    grpc_metadata_array_destroy(&tmd);
    grpc_call_unref(call);
    grpc_completion_queue_shutdown(cq);
    while (grpc_completion_queue_pluck(cq, NULL, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type != GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(cq);
    return rc;
}
