/* Groth16 parameters in bellperson's on-disk layout (`.params` = vk ‖ H ‖ L ‖ A ‖ B_G1 ‖ B_G2, `.vk` = vk
 * alone; u32 big-endian counts, uncompressed ZCash points). Writers are byte for byte bellperson's;
 * readers mmap the file, decode in parallel and report errors naming file, section, offset and problem. */
#ifndef CZ_GROTH16_PARAMS_H
#define CZ_GROTH16_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ec/g1.h"
#include "ec/g2.h"

typedef struct {
    cz_g1_affine alpha_g1, beta_g1;
    cz_g2_affine beta_g2, gamma_g2;
    cz_g1_affine delta_g1;
    cz_g2_affine delta_g2;
    size_t ic_len;    /* public inputs including ONE */
    cz_g1_affine *ic; /* owned (malloc) */
} cz_groth16_vk;

typedef struct {
    cz_groth16_vk vk;
    size_t h_len, l_len, a_len, b_len; /* b_len counts both B_G1 and B_G2 */
    cz_g1_affine *h;    /* tau^i Z(tau) / delta, i = 0..n-2 */
    cz_g1_affine *l;    /* one per aux variable */
    cz_g1_affine *a;    /* all inputs, then aux with A density */
    cz_g1_affine *b_g1; /* inputs with B input density, then aux with B aux density */
    cz_g2_affine *b_g2;
} cz_groth16_params;

/* Whether p's bases were released (its lengths kept, its arrays freed: the engine's srs.release_resident_bases
 * once every GPU holds them; srs.c cz_srs_release_bases). Only the vk may then be read. */
static inline int cz_groth16_params_bases_released(const cz_groth16_params *p) {
    return (p->h_len && !p->h) || (p->l_len && !p->l) || (p->a_len && !p->a) || (p->b_len && (!p->b_g1 || !p->b_g2));
}

/* Reader flags. */
#define CZ_PARAMS_CHECK_SUBGROUP 1u /* subgroup-check every H/L/A/B point (the vk is always checked) */

#define CZ_GROTH16_VK_FIXED_BYTES 868 /* six points + the IC count */

size_t cz_groth16_vk_size(const cz_groth16_vk *vk);
/* out holds cz_groth16_vk_size(vk) bytes. */
void cz_groth16_vk_encode(uint8_t *out, const cz_groth16_vk *vk);
/* Decodes a vk at the start of buf (name is used in error messages); *consumed gets its length.
 * Like bellperson: every point on the curve and in the subgroup; IC points must not be infinity. */
int cz_groth16_vk_decode(cz_groth16_vk *vk, const uint8_t *buf, size_t len, const char *name, size_t *consumed);
void cz_groth16_vk_free(cz_groth16_vk *vk);

int cz_groth16_vk_write_file(const char *path, const cz_groth16_vk *vk);
/* Reads a `.vk` file (or the vk at the start of a `.params` file; trailing bytes are ignored). */
int cz_groth16_vk_read_file(cz_groth16_vk *vk, const char *path);

size_t cz_groth16_params_size(const cz_groth16_params *p);
/* The bytes of its H, L, A, B_G1 and B_G2 points as decoded (96 a G1 point, 192 a G2 one): the size less the vk. */
uint64_t cz_groth16_params_bases_bytes(const cz_groth16_params *p);
/* At least cz_groth16_params_size of any setup of a circuit of ni inputs, na aux and rows R1CS rows (A and B
 * queries counted full, H over the power-of-two domain of rows): what a setup with no file to size it holds. */
uint64_t cz_groth16_params_bound(uint64_t ni, uint64_t na, uint64_t rows);
int cz_groth16_params_write_file(const char *path, const cz_groth16_params *p);
/* Decodes a whole `.params` image; no point may be infinity (bellperson's rule); the counts must be
 * consistent (H + 1 a power of two, A >= IC, B_G1 = B_G2). Trailing bytes are ignored as bellperson does. */
int cz_groth16_params_decode(cz_groth16_params *p, const uint8_t *buf, size_t len, const char *name,
                             unsigned flags);
/* cz_groth16_params_decode that can be given up (a daemon shutting down; a 32 GiB PoRep's file takes ~17 s): stop(arg)
 * is asked before each 2^20 points of a section, and once it returns true the decode ends with CZ_ECANCELED and
 * *p freed. */
int cz_groth16_params_decode_until(cz_groth16_params *p, const uint8_t *buf, size_t len, const char *name,
                                   unsigned flags, bool (*stop)(void *), void *arg);
/* [testing] the points a decode takes between two stop questions (0: the default, 2^20). */
void cz_groth16_params_set_piece_for_test(size_t points);
int cz_groth16_params_read_file(cz_groth16_params *p, const char *path, unsigned flags);
/* A `.params` image's section counts and where its last section ends, from the counts alone (the vk decoded and
 * checked, no other point read): a file cut short (an interrupted download) or of another layout is found in
 * microseconds, not after a 47 GB hash or decode. The decode applies the same rules first. Bytes after B_G2 are
 * not an error (bellperson ignores them): end < the length says they are there. 0 or CZ_EFORMAT (file, section,
 * offset named), or a vk error. */
typedef struct {
    size_t ic_len, h_len, l_len, a_len, b_len;
    uint64_t end; /* the byte after B_G2 */
} cz_groth16_params_layout;
int cz_groth16_params_layout_of(cz_groth16_params_layout *out, const uint8_t *buf, size_t len, const char *name);
/* The same of a file (mapped, a few pages read); *file_bytes (may be NULL) its size. CZ_EIO when unreadable. */
int cz_groth16_params_file_layout(cz_groth16_params_layout *out, uint64_t *file_bytes, const char *path);
void cz_groth16_params_free(cz_groth16_params *p);

#endif
