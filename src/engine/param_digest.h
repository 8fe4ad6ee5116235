/* Official parameter file digests (param_digest.c): go-paramfetch's check, BLAKE2b-512 of the whole file,
 * first 16 bytes as lower-case hex, against rust-fil-proofs' parameters.json. The SRS manager checks an
 * official .params file once before it first decodes it (srs.verify_digest, default on). */
#ifndef CZ_ENGINE_PARAM_DIGEST_H
#define CZ_ENGINE_PARAM_DIGEST_H

#include <stdbool.h>
#include <stddef.h>

/* The expected digest of an official file (a path's last component is looked up), NULL when the name is
 * not in parameters.json. */
const char *cz_param_digest_expected(const char *file_name);
/* hex = the first 16 bytes of BLAKE2b-512(data), 32 hex digits + NUL. */
void cz_param_digest(char hex[33], const void *data, size_t len);
/* cz_param_digest that can be given up (a daemon shutting down during a 47 GB file's ~45 s hash): stop(arg) is asked
 * first and after each 16 MiB; 1 once it returns true (hex not written), else 0. */
int cz_param_digest_until(char hex[33], const void *data, size_t len, bool (*stop)(void *), void *arg);

/* A digest once checked is not hashed again while the file is unchanged (47 GB at 32 GiB PoRep, ~45 s at every
 * daemon start otherwise): <dir>/cuzk-digest-<file name>.ok holds the file's identity when its digest matched
 * (device, inode, size, modification and status-change times to the nanosecond) and that digest. Writing the
 * file, replacing it, or even touching it changes the identity and the next load hashes it again.
 * identity: path's identity now (false when it cannot be stat'ed); take it before hashing. memo_ok: the
 * memo exists, names the file as it is now and the digest want. memo_store: the memo of hex for the identity
 * taken before the hash: 0; 1 (nothing stored) when the file changed since then; CZ_EIO naming the memo file and
 * the system's reason when it cannot be written (a read-only cache: every start hashes again). memo_drop
 * removes it. */
bool cz_param_digest_identity(const char *path, char *out, size_t cap);
bool cz_param_digest_memo_ok(const char *dir, const char *path, const char *want);
int cz_param_digest_memo_store(const char *dir, const char *path, const char *id_before, const char *hex);
void cz_param_digest_memo_drop(const char *dir, const char *path);

#endif
