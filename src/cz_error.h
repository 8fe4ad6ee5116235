/* Status codes and the per-thread error message.
 * Every function that can fail returns 0 or a negative CZ_E* code; the failing function records a
 * message naming the input and what was wrong, readable with cz_error_message() on the same thread. */
#ifndef CZ_ERROR_H
#define CZ_ERROR_H

enum {
    CZ_OK = 0,
    CZ_EINVAL = -1,   /* malformed argument or encoding */
    CZ_ENOMEM = -2,   /* allocation failed */
    CZ_EIO = -3,      /* read/write/mmap failed */
    CZ_EFORMAT = -4,  /* a file or message does not follow its format */
    CZ_ERANGE = -5,   /* a value is outside the field or a size is out of bounds */
    CZ_ECURVE = -6,   /* a point is not on the curve */
    CZ_ESUBGROUP = -7,/* a point is on the curve but not in the prime-order subgroup */
    CZ_EVERIFY = -8,  /* a proof or a check did not verify */
    CZ_EUNSUPPORTED = -9,
    CZ_EDEVICE = -10, /* a GPU call failed */
    CZ_ECANCELED = -11,
    CZ_ENOBASES = -12, /* the host copy of an SRS's bases was released (srs.release_resident_bases) and is needed */
    CZ_EBUILDING = -13, /* not now: another thread is building what the call needs (a GPU prover); try again */
    CZ_ENOROOM = -14,   /* it would fit only by evicting what is resident, which the call may not do (a preload) */
};

/* Records a printf-style message for the calling thread and returns code (so callers can write
 * `return cz_error(CZ_EINVAL, "...", ...)`). */
int cz_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The calling thread's last message ("" when none). */
const char *cz_error_message(void);
/* Forgets the calling thread's message: before a call whose failure is reported, so that a code returned without a
 * message (a path that forgot one) cannot come with an earlier failure's. */
void cz_error_clear(void);
/* The calling thread's message for a failure with this code: the message, or the code's name when there is none. */
const char *cz_error_text(int code);
/* A code and its message carried from a thread to the one that joins it (the message is per thread, so a
 * worker's failure read after pthread_join would otherwise come without it). */
typedef struct {
    int code;
    char msg[512];
} cz_error_kept;
/* On the failing thread: keeps code and, when it is nonzero, the calling thread's message; returns code. */
int cz_error_keep(cz_error_kept *k, int code);
/* On the joining thread: k's message becomes the calling thread's (prefixed with what the worker did, when prefix
 * is not NULL); returns k's code (0: nothing recorded, the message is left alone). */
int cz_error_take(const cz_error_kept *k, const char *prefix);
/* A short name for a code ("CZ_EINVAL", ...). */
const char *cz_error_name(int code);

#endif
