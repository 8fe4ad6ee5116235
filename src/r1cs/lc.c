/* Linear-combination storage: power-of-two size classes (4, 8, 16, ... terms) with free lists,
 * carved from 1 MiB slabs that live until the cs is freed. A freed block goes back to its class's
 * list (its class is known from lc->cap), so record-mode synthesis reaches a steady state with no
 * malloc at all. */
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "r1cs/cs.h"
#include "r1cs/lc_pool.h"

#define SLAB_BYTES (1u << 20)

static unsigned class_of(uint32_t cap) { return (unsigned)__builtin_ctz(cap) - 2; }

int cz_lc_pool_new(struct cz_lc_pool **out) {
    *out = calloc(1, sizeof **out);
    return *out ? 0 : cz_error(CZ_ENOMEM, "lc pool: out of memory");
}

void cz_lc_pool_free(struct cz_lc_pool *p) {
    if (!p) return;
    for (size_t i = 0; i < p->nblocks; i++) free(p->blocks[i]);
    free(p->blocks);
    free(p);
}

static int pool_keep(struct cz_lc_pool *p, void *mem) {
    if (p->nblocks == p->blocks_cap) {
        size_t cap = p->blocks_cap ? p->blocks_cap * 2 : 64;
        void **b = realloc(p->blocks, cap * sizeof *b);
        if (!b) return -1;
        p->blocks = b;
        p->blocks_cap = cap;
    }
    p->blocks[p->nblocks++] = mem;
    return 0;
}

static cz_lc_term *pool_get(struct cz_lc_pool *p, unsigned cls) {
    void *head = p->free_list[cls];
    if (head) {
        p->free_list[cls] = *(void **)head;
        return head;
    }
    size_t bytes = (size_t)(4u << cls) * sizeof(cz_lc_term);
    if (bytes > SLAB_BYTES / 4) {
        /* Big blocks get their own allocation; they are still recycled through the free list. */
        void *m = malloc(bytes);
        if (!m) return NULL;
        if (pool_keep(p, m)) {
            free(m);
            return NULL;
        }
        return m;
    }
    if (p->slab_left < bytes) {
        void *s = malloc(SLAB_BYTES);
        if (!s) return NULL;
        if (pool_keep(p, s)) {
            free(s);
            return NULL;
        }
        p->slab = s;
        p->slab_left = SLAB_BYTES;
    }
    void *m = p->slab;
    p->slab += bytes;
    p->slab_left -= bytes;
    return m;
}

static void pool_put(struct cz_lc_pool *p, cz_lc_term *t, uint32_t cap) {
    unsigned cls = class_of(cap);
    *(void **)t = p->free_list[cls];
    p->free_list[cls] = t;
}

int cz_lc_grow_(cz_cs *cs, cz_lc *lc, uint32_t extra) {
    if (cs->err) return cs->err;
    uint64_t need = (uint64_t)lc->n + extra;
    uint64_t cap = 4;
    unsigned cls = 0;
    while (cap < need) {
        cap <<= 1;
        cls++;
    }
    if (cls >= CZ_LC_POOL_CLASSES) {
        cs->err = cz_error(CZ_ERANGE, "cs: a linear combination needs %llu terms (limit %u)",
                           (unsigned long long)need, 4u << (CZ_LC_POOL_CLASSES - 1));
        return cs->err;
    }
    cz_lc_term *t = pool_get(cs->pool, cls);
    if (!t) {
        cs->err = cz_error(CZ_ENOMEM, "cs: out of memory for a %llu-term linear combination",
                           (unsigned long long)cap);
        return cs->err;
    }
    if (lc->n) memcpy(t, lc->t, lc->n * sizeof *t);
    if (lc->t) pool_put(cs->pool, lc->t, lc->cap);
    lc->t = t;
    lc->cap = (uint32_t)cap;
    return 0;
}

static void lc_add_scaled(cz_cs *cs, cz_lc *dst, const cz_lc *src, const cz_fr *scale, bool negate) {
    if (!(cs->mode & CZ_CS_RECORD) || src->n == 0) return;
    if (dst->n + (uint64_t)src->n > dst->cap && cz_lc_grow_(cs, dst, src->n)) return;
    cz_fr s = scale ? *scale : CZ_FR_ONE_V;
    if (negate) cz_fr_neg(&s, &s);
    bool unit = cz_fr_equal(&s, &CZ_FR_ONE_V);
    for (uint32_t i = 0; i < src->n; i++) {
        cz_lc_term *t = &dst->t[dst->n + i];
        t->var = src->t[i].var;
        if (unit) t->coeff = src->t[i].coeff;
        else cz_fr_mul(&t->coeff, &src->t[i].coeff, &s);
    }
    dst->n += src->n;
}

void cz_lc_add_lc(cz_cs *cs, cz_lc *dst, const cz_lc *src, const cz_fr *scale) {
    lc_add_scaled(cs, dst, src, scale, false);
}

void cz_lc_sub_lc(cz_cs *cs, cz_lc *dst, const cz_lc *src, const cz_fr *scale) {
    lc_add_scaled(cs, dst, src, scale, true);
}

cz_lc cz_lc_copy(cz_cs *cs, const cz_lc *src) {
    cz_lc r = CZ_LC_ZERO;
    lc_add_scaled(cs, &r, src, NULL, false);
    return r;
}

void cz_lc_free(cz_cs *cs, cz_lc *lc) {
    if (lc->t && cs->pool) pool_put(cs->pool, lc->t, lc->cap);
    *lc = CZ_LC_ZERO;
}
