/* The device lock (gpu_prover.h cz_gpu_lock; prover.c), a FIFO ticket lock that a long holder (a prover's build)
 * hands over to its waiters. Pure host threads: it runs without a GPU (label unit, built with the CUDA backend):
 *  - three threads queued one after the other behind the holder get the lock in that order (a plain mutex lets
 *    any of them, or the holder again, in first);
 *  - cz_gpu_lock_waiters_ counts them, less the holder;
 *  - cz_gpu_lock_drop_ lets a waiter in and returns the device; cz_gpu_lock_retake_ takes it back after that waiter
 *    (its ticket is the last); both are no-ops for a thread that holds no lock (-1), and the lock is per device;
 *  - cz_gpu_lock_yield_ with nobody waiting returns 0 and keeps the lock; with a waiter, on a GPU it returns 1 after
 *    the waiter ran (without one, the stream synchronisation fails and it returns the error, keeping the lock);
 *  - with cz_gpu_lock_whole_ (a small build beside a big one) yield and drop keep the lock from a waiter, and a
 *    yield after cz_gpu_prover_abort_builds fails with CZ_ECANCELED. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "cz_error.h"
#include "gpu/gpu.h"
#include "gpu/gpu_internal.h"
#include "gpu/gpu_prover.h"
#include "../testutil.h"

static int order[8], n_order;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
    int id, dev;
} arg;

static void *taker(void *p) {
    const arg *a = p;
    cz_gpu_lock(a->dev);
    pthread_mutex_lock(&g_mu);
    order[n_order++] = a->id;
    pthread_mutex_unlock(&g_mu);
    cz_gpu_unlock(a->dev);
    return NULL;
}

/* waits (up to ~5 s) until dev's lock has want waiters */
static bool wait_waiters(int dev, int want) {
    for (int t = 0; t < 50000; t++) {
        if (cz_gpu_lock_waiters_(dev) == want) return true;
        usleep(100);
    }
    return false;
}

static int taken(void) {
    pthread_mutex_lock(&g_mu);
    const int n = n_order;
    pthread_mutex_unlock(&g_mu);
    return n;
}

int main(void) {
    /* FIFO behind the holder */
    cz_gpu_lock(3);
    CHECK(cz_gpu_lock_waiters_(3) == 0);
    pthread_t th[3];
    arg a[3];
    for (int i = 0; i < 3; i++) {
        a[i] = (arg){i + 1, 3};
        CHECK(pthread_create(&th[i], NULL, taker, &a[i]) == 0);
        CHECK_MSG(wait_waiters(3, i + 1), "waiter %d never queued (%d waiting)", i + 1, cz_gpu_lock_waiters_(3));
    }
    CHECK(cz_gpu_lock_waiters_(5) == 0); /* another device's lock is its own */
    cz_gpu_lock(5);
    cz_gpu_unlock(5);
    cz_gpu_unlock(3);
    for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
    CHECK_MSG(n_order == 3 && order[0] == 1 && order[1] == 2 && order[2] == 3, "order %d %d %d (of %d)", order[0],
              order[1], order[2], n_order);
    printf("FIFO: %d %d %d\n", order[0], order[1], order[2]);

    /* drop and retake: the waiter goes in between */
    n_order = 0;
    CHECK(cz_gpu_lock_drop_() == -1); /* holds none */
    cz_gpu_lock_retake_(-1);
    cz_gpu_lock(3);
    a[0] = (arg){7, 3};
    CHECK(pthread_create(&th[0], NULL, taker, &a[0]) == 0);
    CHECK(wait_waiters(3, 1));
    const int held = cz_gpu_lock_drop_();
    CHECK_MSG(held == 3, "drop returned %d", held);
    cz_gpu_lock_retake_(held);
    CHECK_MSG(taken() == 1 && order[0] == 7, "the waiter did not run between drop and retake (%d)", taken());
    pthread_join(th[0], NULL);

    /* yield: nothing to do without waiters; with one, it goes first (on a GPU) */
    CHECK(cz_gpu_lock_yield_(NULL) == 0);
    n_order = 0;
    a[0] = (arg){9, 3};
    CHECK(pthread_create(&th[0], NULL, taker, &a[0]) == 0);
    CHECK(wait_waiters(3, 1));
    const int y = cz_gpu_lock_yield_(NULL);
    if (cz_gpu_device_count() > 0) {
        CHECK_MSG(y == 1 && taken() == 1, "yield with a waiter: %d, %d taken", y, taken());
    } else {
        CHECK_MSG(y < 0 && taken() == 0, "yield without a GPU: %d, %d taken", y, taken());
        printf("no GPU: the yield's synchronisation failed as it must, the lock kept\n");
    }
    cz_gpu_unlock(3);
    pthread_join(th[0], NULL);
    CHECK(taken() == 1 && order[0] == 9);
    CHECK(cz_gpu_lock_drop_() == -1);

    /* whole (a small build beside a big one): yields and drops do nothing while a waiter waits; after
     * cz_gpu_prover_abort_builds a yield still fails with CZ_ECANCELED */
    n_order = 0;
    cz_gpu_lock(3);
    cz_gpu_lock_whole_(1);
    a[0] = (arg){11, 3};
    CHECK(pthread_create(&th[0], NULL, taker, &a[0]) == 0);
    CHECK(wait_waiters(3, 1));
    CHECK(cz_gpu_lock_yield_(NULL) == 0);
    const int kept = cz_gpu_lock_drop_();
    cz_gpu_lock_retake_(kept);
    usleep(20 * 1000);
    CHECK_MSG(kept == -1 && taken() == 0 && cz_gpu_lock_waiters_(3) == 1,
              "whole: drop returned %d, %d taken, %d waiting", kept, taken(), cz_gpu_lock_waiters_(3));
    cz_gpu_prover_abort_builds(true);
    CHECK(cz_gpu_lock_yield_(NULL) == CZ_ECANCELED);
    cz_gpu_prover_abort_builds(false);
    cz_gpu_lock_whole_(0);
    cz_gpu_unlock(3);
    pthread_join(th[0], NULL);
    CHECK(taken() == 1 && order[0] == 11);
    return cz_test_finish();
}
