/* The daemon's GPU provider (gpu_provider.c; only in builds with CUDA). */
#ifndef CZ_CLI_GPU_PROVIDER_H
#define CZ_CLI_GPU_PROVIDER_H

#include "engine/backend.h"

/* Fills b with src/gpu's backend over the devices of gpus.devices (all when empty), those this build has
 * kernels for (cz_backend_pick_devices with cz_gpu_arch_check): CZ_EUNSUPPORTED when no CUDA device exists
 * or none is usable or gpus.devices names one the build has no kernels for, CZ_EINVAL when gpus.devices
 * names one that does not exist (or twice). */
int cz_gpu_provider_init(cz_backend *b, const cz_config *cfg, int nthreads);
extern const cz_gpu_provider cz_daemon_gpu_provider;

#endif
