/* A lost device (cz_gpu_device_check, the engine's device_lost hook in backend_gpu.c): a child process breaks
 * device 0's context on purpose (cz_gpu_fault_for_test: a kernel writes to an invalid address) and checks that
 * the device read healthy before and lost after, with the CUDA error named, through the probe and through
 * the backend's hook, while another device of the same process (if any) stays healthy. The parent initializes
 * CUDA only after the child exits (a CUDA context does not survive fork) and finds device 0 healthy: the
 * broken context was the child's, not the device's. Exits 77 (skipped) without a GPU. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cz_error.h"
#include "engine/backend.h"
#include "gpu/gpu.h"
#include "gpu/gpu_prover.h"
#include "testutil.h"

static int child(void) {
    int n = cz_gpu_device_count();
    if (n <= 0) return 77;
    char why[256] = "x";
    CHECK_MSG(cz_gpu_device_check(0, why, sizeof why) == 0 && !why[0], "healthy device 0: %s", why);
    cz_backend be;
    cz_backend_gpu_init(&be, 1);
    CHECK(be.device_lost && !be.device_lost(&be, 0, why, sizeof why));
    CHECK_MSG(cz_gpu_fault_for_test(0) == 0, "%s", cz_error_message());
    CHECK_MSG(cz_gpu_device_check(0, why, sizeof why) == CZ_EDEVICE &&
                  strstr(why, "cudaErrorIllegalAddress") &&
                  strstr(cz_error_message(), "cudaErrorIllegalAddress"),
              "after the fault: %s", why);
    CHECK(cz_gpu_device_check(0, why, sizeof why) == CZ_EDEVICE); /* sticky: it stays lost */
    why[0] = 0;
    CHECK(be.device_lost && be.device_lost(&be, 0, why, sizeof why) &&
          strstr(why, "cudaErrorIllegalAddress"));
    if (n > 1) /* the sticky error is device 0's context's, not the process's */
        CHECK_MSG(cz_gpu_device_check(1, why, sizeof why) == 0, "device 1 after device 0's fault: %s", why);
    return cz_test_finish();
}

int main(void) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        int rc = child();
        fflush(stdout), fflush(stderr);
        _exit(rc); /* no atexit teardown of the broken context */
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status 0x%x", status);
    char why[256];
    CHECK_MSG(cz_gpu_device_check(0, why, sizeof why) == 0, "parent, device 0: %s", why);
    return cz_test_finish();
}
