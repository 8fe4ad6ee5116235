/* A failure's message carried across a thread join (cz_error_keep / cz_error_take) and a failure without a message
 * (cz_error_clear / cz_error_text). Messages are per thread: B_G2's thread in the GPU prover returned its code to
 * the partition's thread without its message, and a 32 GiB Snap job on an H100 failed with "prover start for
 * partition 0 failed: " and nothing after (session 71).
 *  - a worker's message reaches the joiner, prefixed, with its code; the joiner's own earlier message is replaced;
 *  - a worker that fails without a message: the joiner gets the code's name, not its own stale message;
 *  - a worker that succeeds: take returns 0 and leaves the joiner's message alone;
 *  - cz_error_text: the message, or after cz_error_clear the code's name. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../testutil.h"
#include "cz_error.h"

typedef struct {
    int mode; /* 0: succeeds, 1: fails with a message, 2: fails without one */
    cz_error_kept err;
} job;

static void *worker(void *arg) {
    job *j = arg;
    int rc = 0;
    if (j->mode == 1) rc = cz_error(CZ_ENOMEM, "GPU scratch of %d bytes: out of memory", 4096);
    else if (j->mode == 2) rc = CZ_EDEVICE;
    cz_error_keep(&j->err, rc);
    return NULL;
}

static int run(job *j, int mode) {
    memset(j, 0, sizeof *j);
    j->mode = mode;
    pthread_t th;
    if (pthread_create(&th, NULL, worker, j)) return -1;
    pthread_join(th, NULL);
    return 0;
}

int main(void) {
    job j;
    cz_error(CZ_EINVAL, "the joiner's earlier failure");
    CHECK(run(&j, 1) == 0);
    CHECK(j.err.code == CZ_ENOMEM && !strcmp(j.err.msg, "GPU scratch of 4096 bytes: out of memory"));
    CHECK(!strcmp(cz_error_message(), "the joiner's earlier failure")); /* the worker's is its own thread's */
    CHECK(cz_error_take(&j.err, "B_G2 beside the G1 queries") == CZ_ENOMEM);
    CHECK_MSG(!strcmp(cz_error_message(), "B_G2 beside the G1 queries: GPU scratch of 4096 bytes: out of memory"), "%s",
              cz_error_message());
    CHECK(cz_error_take(&j.err, NULL) == CZ_ENOMEM &&
          !strcmp(cz_error_message(), "GPU scratch of 4096 bytes: out of memory"));

    cz_error(CZ_EINVAL, "the joiner's earlier failure");
    CHECK(run(&j, 2) == 0);
    CHECK(j.err.code == CZ_EDEVICE && j.err.msg[0] == 0);
    CHECK(cz_error_take(&j.err, "B_G2 on the host") == CZ_EDEVICE);
    CHECK_MSG(!strcmp(cz_error_message(), "B_G2 on the host: CZ_EDEVICE"), "%s", cz_error_message());

    cz_error(CZ_EINVAL, "kept");
    CHECK(run(&j, 0) == 0);
    CHECK(j.err.code == 0 && cz_error_take(&j.err, "B_G2") == 0 && !strcmp(cz_error_message(), "kept"));

    CHECK(!strcmp(cz_error_text(CZ_EINVAL), "kept"));
    cz_error_clear();
    CHECK(cz_error_message()[0] == 0 && !strcmp(cz_error_text(CZ_EDEVICE), "CZ_EDEVICE"));
    return cz_test_finish();
}
