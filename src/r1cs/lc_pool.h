/* Internal to r1cs/: the per-cs pool behind linear-combination storage (see lc.c). */
#ifndef CZ_R1CS_LC_POOL_H
#define CZ_R1CS_LC_POOL_H

#include <stddef.h>

#define CZ_LC_POOL_CLASSES 27 /* blocks of 4 .. 4<<26 terms */

struct cz_lc_pool {
    void *free_list[CZ_LC_POOL_CLASSES];
    char *slab;
    size_t slab_left;
    void **blocks; /* every slab and big block, freed with the pool */
    size_t nblocks, blocks_cap;
};

int cz_lc_pool_new(struct cz_lc_pool **out);
void cz_lc_pool_free(struct cz_lc_pool *p);

#endif
