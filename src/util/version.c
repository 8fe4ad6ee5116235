/* See version.h. */
#include "util/version.h"

#include "cz_version.h" /* build/generated, written by cmake/version.cmake */

const char *cz_version(void) { return CZ_VERSION_STRING; }
const char *cz_build_commit(void) { return CZ_BUILD_COMMIT; }
const char *cz_build_cuda_arch(void) { return CZ_BUILD_CUDA_ARCH; }

const char *cz_version_line(void) {
    return sizeof CZ_BUILD_CUDA_ARCH > 1 ? CZ_VERSION_STRING " (commit " CZ_BUILD_COMMIT ", CUDA " CZ_BUILD_CUDA_ARCH ")"
                                         : CZ_VERSION_STRING " (commit " CZ_BUILD_COMMIT ", no GPU backend)";
}
