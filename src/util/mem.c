#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "util/mem.h"

#include <stdint.h>
#include <sys/mman.h>

void cz_advise_hugepages(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
    /* Record mode writes gigabytes of fresh memory once; with 4 KiB pages the page faults cost more
     * than the work (seen 2x-5x on a VM). Hints only: failure changes nothing. */
    if (bytes < (8u << 20)) return;
    uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
    if (e > a) madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p, (void)bytes;
#endif
}
