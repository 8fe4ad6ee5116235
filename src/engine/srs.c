#include "engine/srs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cz_error.h"
#include "engine/log.h"
#include "groth16/setup.h"

void cz_srs_init(cz_srs_mgr *m, const char *param_cache, int nthreads) {
    memset(m, 0, sizeof *m);
    pthread_mutex_init(&m->mu, NULL);
    pthread_cond_init(&m->cv, NULL);
    snprintf(m->param_cache, sizeof m->param_cache, "%s", param_cache ? param_cache : "");
    m->nthreads = nthreads;
}

static void unload(cz_srs_entry *e) {
    cz_groth16_pvk_free(&e->pvk);
    cz_groth16_params_free(&e->params);
    cz_r1cs_free(&e->r1cs);
    e->state = 0;
    e->bytes = 0;
}

void cz_srs_destroy(cz_srs_mgr *m) {
    cz_srs_entry *e = m->head;
    while (e) {
        cz_srs_entry *n = e->next;
        if (e->state == 2) unload(e);
        free(e);
        e = n;
    }
    pthread_mutex_destroy(&m->mu);
    pthread_cond_destroy(&m->cv);
}

static cz_srs_entry *entry(cz_srs_mgr *m, const cz_circuit *c) {
    for (cz_srs_entry *e = m->head; e; e = e->next)
        if (e->circuit == c) return e;
    cz_srs_entry *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->circuit = c;
    e->next = m->head;
    m->head = e;
    return e;
}

/* Test circuits: read "<param_cache>/cuzk-test-<id>.params" when present, else run the seeded setup and
 * try to write the file so the next start skips it. Runs without the manager lock. */
static int load(cz_srs_mgr *m, cz_srs_entry *e) {
    const cz_circuit *c = e->circuit;
    if (!c->available || !c->build_r1cs) return cz_error(CZ_EUNSUPPORTED, "circuit %s is not available yet", c->id);
    int rc = c->build_r1cs(c, &e->r1cs);
    if (rc) return rc;
    char path[700] = "";
    if (*m->param_cache) snprintf(path, sizeof path, "%s/cuzk-test-%s.params", m->param_cache, c->id);
    int have = 0;
    if (*path && access(path, R_OK) == 0) {
        if (cz_groth16_params_read_file(&e->params, path, 0) == 0) {
            have = 1;
            cz_log(CZ_LOG_INFO, "cuzk::srs", "read test parameters %s", path);
        } else {
            cz_log(CZ_LOG_WARN, "cuzk::srs", "ignoring unreadable %s: %s", path, cz_error_message());
        }
    }
    if (!have) {
        cz_groth16_toxic tw;
        cz_groth16_toxic_from_seed(&tw, c->setup_seed);
        if ((rc = cz_groth16_setup(&e->params, &e->r1cs, &tw, m->nthreads))) {
            cz_r1cs_free(&e->r1cs);
            return rc;
        }
        if (*path) {
            char tmp[720];
            snprintf(tmp, sizeof tmp, "%s.tmp%d", path, (int)getpid());
            mkdir(m->param_cache, 0755);
            if (cz_groth16_params_write_file(tmp, &e->params) == 0 && rename(tmp, path) == 0)
                cz_log(CZ_LOG_INFO, "cuzk::srs", "wrote test parameters %s", path);
            else
                unlink(tmp);
        }
    }
    if ((rc = cz_groth16_pvk_init(&e->pvk, &e->params.vk))) {
        cz_groth16_params_free(&e->params);
        cz_r1cs_free(&e->r1cs);
        return rc;
    }
    e->bytes = cz_groth16_params_size(&e->params);
    return 0;
}

/* With m->mu held: waits out another loader, loads when cold. */
static int ensure(cz_srs_mgr *m, cz_srs_entry *e, uint64_t *load_ms, bool *already) {
    while (e->state == 1) pthread_cond_wait(&m->cv, &m->mu);
    if (already) *already = e->state == 2;
    *load_ms = 0;
    if (e->state == 2) return 0;
    e->state = 1;
    pthread_mutex_unlock(&m->mu);
    uint64_t t0 = cz_now_ms();
    int rc = load(m, e);
    uint64_t dt = cz_now_ms() - t0;
    pthread_mutex_lock(&m->mu);
    e->state = rc ? 0 : 2;
    pthread_cond_broadcast(&m->cv);
    if (rc) return rc;
    e->load_ms = *load_ms = dt;
    cz_log(CZ_LOG_INFO, "cuzk::srs", "SRS loaded successfully circuit_id=%s bytes=%llu load_ms=%llu%s", e->circuit->id,
           (unsigned long long)e->bytes, (unsigned long long)dt,
           e->circuit->is_test ? " (built-in TEST circuit: seeded parameters, not for real sectors)" : "");
    return 0;
}

int cz_srs_acquire(cz_srs_mgr *m, const cz_circuit *c, cz_srs_entry **out, uint64_t *load_ms) {
    pthread_mutex_lock(&m->mu);
    cz_srs_entry *e = entry(m, c);
    int rc = e ? 0 : cz_error(CZ_ENOMEM, "out of memory");
    if (!rc) e->refs++; /* held across the load so an evict cannot race it */
    if (!rc && (rc = ensure(m, e, load_ms, NULL))) e->refs--;
    if (!rc) {
        e->last_used_ms = cz_now_ms();
        *out = e;
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

void cz_srs_release(cz_srs_mgr *m, cz_srs_entry *e) {
    pthread_mutex_lock(&m->mu);
    e->refs--;
    e->last_used_ms = cz_now_ms();
    pthread_mutex_unlock(&m->mu);
}

int cz_srs_preload(cz_srs_mgr *m, const cz_circuit *c, bool *already, uint64_t *load_ms) {
    pthread_mutex_lock(&m->mu);
    cz_srs_entry *e = entry(m, c);
    int rc = e ? ensure(m, e, load_ms, already) : cz_error(CZ_ENOMEM, "out of memory");
    if (!rc) e->last_used_ms = cz_now_ms();
    pthread_mutex_unlock(&m->mu);
    return rc;
}

int cz_srs_evict(cz_srs_mgr *m, const cz_circuit *c, bool *was_loaded, uint64_t *freed) {
    pthread_mutex_lock(&m->mu);
    *was_loaded = false, *freed = 0;
    int rc = 0;
    for (cz_srs_entry *e = m->head; e; e = e->next) {
        if (e->circuit != c) continue;
        while (e->state == 1) pthread_cond_wait(&m->cv, &m->mu);
        if (e->state != 2) break;
        if (e->refs) {
            rc = cz_error(-103 /* CZ_EBUSY */, "SRS %s is in use by %u job(s)", c->id, e->refs);
            break;
        }
        *was_loaded = true;
        *freed = e->bytes;
        unload(e);
        cz_log(CZ_LOG_INFO, "cuzk::srs", "SRS evicted circuit_id=%s freed_bytes=%llu", c->id, (unsigned long long)*freed);
        break;
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

uint64_t cz_srs_loaded_bytes(cz_srs_mgr *m) {
    pthread_mutex_lock(&m->mu);
    uint64_t n = 0;
    for (cz_srs_entry *e = m->head; e; e = e->next) n += e->state == 2 ? e->bytes : 0;
    pthread_mutex_unlock(&m->mu);
    return n;
}

uint64_t cz_srs_evict_idle(cz_srs_mgr *m, uint64_t need, uint64_t min_idle_ms) {
    pthread_mutex_lock(&m->mu);
    uint64_t freed = 0, now = cz_now_ms();
    while (freed < need) {
        cz_srs_entry *lru = NULL;
        for (cz_srs_entry *e = m->head; e; e = e->next)
            if (e->state == 2 && !e->refs && now - e->last_used_ms >= min_idle_ms &&
                (!lru || e->last_used_ms < lru->last_used_ms))
                lru = e;
        if (!lru) break;
        freed += lru->bytes;
        cz_log(CZ_LOG_INFO, "cuzk::srs", "SRS evicted for memory pressure circuit_id=%s bytes=%llu idle_ms=%llu",
               lru->circuit->id, (unsigned long long)lru->bytes, (unsigned long long)(now - lru->last_used_ms));
        unload(lru);
    }
    pthread_mutex_unlock(&m->mu);
    return freed;
}
