/* The registry of page-locked host ranges (host_reg.c): who holds each registration, and its pieces. The CUDA
 * calls come in as ops (alloc.cu passes cudaHostRegister and friends; tests pass fakes), so the bookkeeping runs
 * and is tested without a GPU. Not a public API: the prover uses cz_gpu_host_register_ (prover_internal.h). */
#ifndef CZ_GPU_HOST_REG_H
#define CZ_GPU_HOST_REG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int (*pin)(void *p, size_t bytes); /* page-locks one piece: 0 on success */
    void (*unpin)(void *p);            /* unlocks the piece that starts at p */
    int (*is_pinned)(const void *p);   /* 1 when p is page-locked by anyone */
    void *(*dev_ptr)(const void *p);   /* the device address of page-locked p, or NULL */
    void (*between)(void);             /* between two pieces pinned or unpinned (a pause), or NULL */
} cz_host_pin_ops;

#define CZ_HOST_REG_WHOLE ((size_t)-1) /* cz_host_reg_acquire_'s piece: the whole range in one */

/* Holds [p, p+bytes) page-locked: *ok = 1 and the caller holds it (cz_host_reg_release_ lets go), when a range of
 * ours already holds it (one more holder: nothing is pinned again) or when it is pinned now, in pieces of `piece`
 * bytes (a multiple of 4096; CZ_HOST_REG_WHOLE or one larger than the range: one piece; anything else, 0
 * included, means 64 MiB) from the 4 KiB page below p, so that no page is in two pieces; a range being pinned or
 * unpinned by another thread is waited for. *ok = 0 (and no error: the copies stay pageable) when p is
 * page-locked by someone else (used as is) or a piece is refused (the pieces pinned so far are unpinned). Pinning
 * runs outside the registry's lock: other ranges are pinned and released meanwhile. Returns 0. */
int cz_host_reg_acquire_(const cz_host_pin_ops *ops, void *p, size_t bytes, size_t piece, int *ok);
/* Lets go of one hold on our range holding p; the last holder unpins all its pieces. */
void cz_host_reg_release_(const cz_host_pin_ops *ops, void *p);
/* The holders of our range holding p (0: none). */
unsigned cz_host_reg_holders_(const void *p);
/* The device address of [p, p+bytes) when it is one run of device addresses: for our range holding it, every piece
 * must map right after the one before it; else NULL. */
void *cz_host_reg_span_(const cz_host_pin_ops *ops, const void *p, size_t bytes);
/* The bytes from p to the end of the piece of our range that holds p, at most `bytes` (`bytes` when [p, p+bytes)
 * is not inside one of our ranges). A host <-> device copy runs piece by piece, each piece's part a copy of its own:
 * one that spans two registrations is the likely cause of the invalid argument test_gpu_prover_stream's 4 KiB pieces
 * hit on an H100 (session 56; not confirmed). */
size_t cz_host_reg_cut_(const void *p, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
