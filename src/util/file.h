/* Reading a whole file into memory: configs, C1 and vanilla-proof JSON, snarkjs files. */
#ifndef CZ_UTIL_FILE_H
#define CZ_UTIL_FILE_H

#include <stddef.h>

/* The whole content of the file at path into *out (*len bytes and a NUL after them; the caller frees it). A
 * regular file is read in one go from its size; anything else that can be read to its end (a pipe, bash's
 * <(...), /dev/stdin) in growing blocks. max bounds what is read: a file or stream holding more is refused
 * after max + 1 bytes, never read whole. CZ_EIO with the path and the reason (cannot open, a directory, a read
 * error, larger than max bytes) or CZ_ENOMEM; *out is then NULL. len may be NULL. */
int cz_file_read(const char *path, size_t max, char **out, size_t *len);

#endif
