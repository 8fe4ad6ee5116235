/* Official parameter file digests (param_digest.c): go-paramfetch's check, BLAKE2b-512 of the whole file,
 * first 16 bytes as lower-case hex, against rust-fil-proofs' parameters.json. The SRS manager checks an
 * official .params file once before it first decodes it (srs.verify_digest, default on). */
#ifndef CZ_ENGINE_PARAM_DIGEST_H
#define CZ_ENGINE_PARAM_DIGEST_H

#include <stddef.h>

/* The expected digest of an official file (a path's last component is looked up), NULL when the name is
 * not in parameters.json. */
const char *cz_param_digest_expected(const char *file_name);
/* hex = the first 16 bytes of BLAKE2b-512(data), 32 hex digits + NUL. */
void cz_param_digest(char hex[33], const void *data, size_t len);

#endif
