/* Memory hints for the big host arrays (R1CS matrices, decoded parameters). */
#ifndef CZ_UTIL_MEM_H
#define CZ_UTIL_MEM_H

#include <stddef.h>

/* Asks for transparent huge pages on a large heap block (a no-op below 8 MiB or without THP). Arrays of
 * gigabytes written once (a recording's terms, 47 GB of decoded 32 GiB parameters) otherwise spend as much
 * time in 4 KiB page faults as in their work. */
void cz_advise_hugepages(void *p, size_t bytes);

#endif
