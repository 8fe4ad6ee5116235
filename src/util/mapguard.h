/* Reads of a file mapping whose file may be cut short under them. A read past the new end of a shared file page
 * raises SIGBUS, whose default action kills the process: a daemon reading a 47 GB parameter file for a minute (its
 * digest, its decode) would die, every job with it, if the file were truncated in place meanwhile (a download
 * restarted over it). Between cz_mapguard_begin and cz_mapguard_end, a SIGBUS at an address of the guarded range
 * maps a zero page over the missing page and is counted: the reader goes on (reading zeros) and learns from
 * cz_mapguard_end that the bytes it read are not the file's. A SIGBUS anywhere else keeps its meaning (the handler
 * that was installed before, else the default action). The mapping must be unmapped after a faulted read (it then
 * holds anonymous pages). Any thread may fault (an OpenMP decode); up to CZ_MAPGUARD_MAX guards at once. */
#ifndef CZ_UTIL_MAPGUARD_H
#define CZ_UTIL_MAPGUARD_H

#include <stddef.h>

#define CZ_MAPGUARD_MAX 16

typedef struct {
    int slot; /* -1: none free, the range is read unguarded */
} cz_mapguard;

void cz_mapguard_begin(cz_mapguard *g, const void *addr, size_t len);
/* Pages of the range that faulted since begin (0: every byte read was the file's); the guard is released. */
unsigned cz_mapguard_end(cz_mapguard *g);

#endif
