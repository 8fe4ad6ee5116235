/* What a failed CUDA call becomes (cuda_util.cuh CZ_CUDA): out of memory, from an allocation or a launch, is
 * CZ_ENOMEM, which the engine answers by freeing the device's scratch and proving the partition again (a kernel
 * launch out of memory on an H100 came back as CZ_EDEVICE and failed a 32 GiB SnapDeals job without that retry,
 * session 72); every other error is CZ_EDEVICE, with the call, the file and CUDA's text. Runs without a GPU. */
#include <stdio.h>
#include <string.h>

#include "cz_error.h"
#include "gpu/gpu_internal.h"
#include "../testutil.h"

int main(void) {
    CHECK(cz_gpu_cuda_status_for_test_(0) == 0);                 /* cudaSuccess */
    int rc = cz_gpu_cuda_status_for_test_(2);                    /* cudaErrorMemoryAllocation */
    CHECK_MSG(rc == CZ_ENOMEM && strstr(cz_error_message(), "out of memory") && strstr(cz_error_message(), "gpu.cu"),
              "out of memory: %d %s", rc, cz_error_message());
    rc = cz_gpu_cuda_status_for_test_(1);                        /* cudaErrorInvalidValue */
    CHECK_MSG(rc == CZ_EDEVICE && strstr(cz_error_message(), "invalid argument"), "invalid value: %d %s", rc,
              cz_error_message());
    rc = cz_gpu_cuda_status_for_test_(700);                      /* cudaErrorIllegalAddress */
    CHECK_MSG(rc == CZ_EDEVICE && strstr(cz_error_message(), "illegal memory access"), "illegal address: %d %s", rc,
              cz_error_message());
    printf("CZ_CUDA: out of memory -> CZ_ENOMEM, others -> CZ_EDEVICE\n");
    return cz_test_finish();
}
