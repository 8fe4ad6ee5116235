/* cz_par_check (src/util/par.h): every call runs on the OpenMP threads, and the result is the serial loop's: the
 * lowest failing index, its return code and its cz_error message (set on a worker thread, cz_error being per
 * thread), whatever order the threads finish in; no failure gives 0; n = 0 runs nothing. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "cz_error.h"
#include "testutil.h"
#include "util/par.h"

typedef struct {
    atomic_uint calls;
    unsigned fail[4], nfail, slow; /* slow: an index whose call takes ~10 ms, so later failures finish first */
} ctx_t;

static int fn(void *p, unsigned i) {
    ctx_t *c = p;
    atomic_fetch_add(&c->calls, 1);
    volatile unsigned spin = i == c->slow ? 20000000u : (i * 2654435761u) % 5000; /* the threads finish out of order */
    while (spin) spin--;
    for (unsigned k = 0; k < c->nfail; k++)
        if (c->fail[k] == i) return cz_error(i % 2 ? CZ_EVERIFY : CZ_EINVAL, "check %u failed", i);
    return 0;
}

int main(void) {
    for (int round = 0; round < 40; round++) {
        ctx_t c = {0};
        c.nfail = 3, c.fail[0] = 997, c.fail[1] = 501 + (unsigned)round, c.fail[2] = 777, c.slow = c.fail[1];
        unsigned bad = 12345;
        cz_error(CZ_OK, "stale message");
        int rc = cz_par_check(1000, round % 3 ? 0 : 7, fn, &c, &bad);
        unsigned want = 501 + (unsigned)round;
        char msg[64];
        snprintf(msg, sizeof msg, "check %u failed", want);
        CHECK_MSG(rc == (want % 2 ? CZ_EVERIFY : CZ_EINVAL) && bad == want && !strcmp(cz_error_message(), msg),
                  "round %d: rc %d, bad %u, message '%s' (want %u)", round, rc, bad, cz_error_message(), want);
        CHECK_MSG(atomic_load(&c.calls) == 1000, "round %d: %u calls", round, atomic_load(&c.calls));
    }
    ctx_t ok = {0};
    ok.slow = 1000;
    unsigned bad = 7;
    CHECK(cz_par_check(300, 0, fn, &ok, &bad) == 0 && bad == 7 && atomic_load(&ok.calls) == 300);
    ctx_t none = {0};
    none.slow = 1000;
    none.nfail = 1, none.fail[0] = 0;
    CHECK(cz_par_check(0, 0, fn, &none, NULL) == 0 && atomic_load(&none.calls) == 0);
    CHECK(cz_par_check(1, 0, fn, &none, NULL) == CZ_EINVAL && !strcmp(cz_error_message(), "check 0 failed"));
    return cz_test_finish();
}
