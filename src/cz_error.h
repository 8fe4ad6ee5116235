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
/* A short name for a code ("CZ_EINVAL", ...). */
const char *cz_error_name(int code);

#endif
