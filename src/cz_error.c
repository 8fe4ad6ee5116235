#include "cz_error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char cz_error_buf[512];

int cz_error(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cz_error_buf, sizeof cz_error_buf, fmt, ap);
    va_end(ap);
    return code;
}

const char *cz_error_message(void) { return cz_error_buf; }

void cz_error_clear(void) { cz_error_buf[0] = 0; }

const char *cz_error_text(int code) { return cz_error_buf[0] ? cz_error_buf : cz_error_name(code); }

int cz_error_keep(cz_error_kept *k, int code) {
    k->code = code;
    if (code) snprintf(k->msg, sizeof k->msg, "%s", cz_error_buf);
    else k->msg[0] = 0;
    return code;
}

int cz_error_take(const cz_error_kept *k, const char *prefix) {
    if (!k->code) return 0;
    const char *m = k->msg[0] ? k->msg : cz_error_name(k->code); /* a code without a message names itself */
    return prefix ? cz_error(k->code, "%s: %s", prefix, m) : cz_error(k->code, "%s", m);
}

const char *cz_error_name(int code) {
    switch (code) {
    case CZ_OK: return "CZ_OK";
    case CZ_EINVAL: return "CZ_EINVAL";
    case CZ_ENOMEM: return "CZ_ENOMEM";
    case CZ_EIO: return "CZ_EIO";
    case CZ_EFORMAT: return "CZ_EFORMAT";
    case CZ_ERANGE: return "CZ_ERANGE";
    case CZ_ECURVE: return "CZ_ECURVE";
    case CZ_ESUBGROUP: return "CZ_ESUBGROUP";
    case CZ_EVERIFY: return "CZ_EVERIFY";
    case CZ_EUNSUPPORTED: return "CZ_EUNSUPPORTED";
    case CZ_EDEVICE: return "CZ_EDEVICE";
    case CZ_ECANCELED: return "CZ_ECANCELED";
    case CZ_ENOBASES: return "CZ_ENOBASES";
    case CZ_EBUILDING: return "CZ_EBUILDING";
    case CZ_ENOROOM: return "CZ_ENOROOM";
    default: return "CZ_E?";
    }
}
