"""e2e: prover backend selection (gpus.backend) and how the daemon reports GPUs. With no usable GPU (CI builds
with CUDA but has none; a build without CUDA has none either) "auto" must start on the CPU backend and prove;
"gpu" must stop at startup with one clear line (exit 1); "cpu" always works. When this machine does have a
GPU and the build has CUDA, "auto" must pick it, GetStatus lists one entry per GPU worker (ordinal, name,
VRAM, as cuzk) and the metrics name it. Usage: test_backend.py BUILD_DIR SOURCE_DIR."""
import os, shutil, subprocess
from cuzk_e2e import BASE_CONFIG, BUILD, Daemon, check, finish, pb, submit_req, prom_check, grpc

CONFIG = BASE_CONFIG + """[gpus]
backend = "%s"
gpu_workers_per_device = 2
"""
cuda_build = os.path.isdir(os.path.join(BUILD, "src", "gpu"))  # cuzk_gpu is built only with nvcc


def gpu_count():
    if not cuda_build or not shutil.which("nvidia-smi"):
        return 0
    r = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    return sum(ln.startswith("GPU ") for ln in r.stdout.splitlines()) if r.returncode == 0 else 0


ngpu = gpu_count()
print(f"CUDA in the build: {cuda_build}; GPUs: {ngpu}")

# "auto": GPU when there is one, else the CPU backend (and it proves).
d = Daemon(CONFIG % "auto", name="auto")
S, _ = d.stub()
try:
    import json
    st = json.loads(d.http("/status")[2])
    gs = S.GetStatus(pb.GetStatusRequest())
    log = d.logtext()
    text = S.GetMetrics(pb.GetMetricsRequest()).prometheus_text
    ok, why, vals = prom_check(text)
    check(ok, f"metrics parse ({why})")
    if ngpu == 0:
        check(st["backend"] == "cpu" and st["gpus"] == [] and len(gs.gpus) == 0,
              f"auto without a GPU: CPU backend, no GPUs reported (backend {st['backend']}, {len(gs.gpus)} gpus)")
        check(vals.get("cuzk_gpu_devices") == 0 and "cuzk_gpu_info" not in text, "metrics: cuzk_gpu_devices 0")
        check(all(w["gpu_ordinal"] == -1 for w in st["gpu_workers"]), "workers have no GPU ordinal")
        if cuda_build:
            check("GPU device" not in log, "no GPU device logged")
    else:
        check(st["backend"] == "gpu" and len(st["gpus"]) == ngpu and len(gs.gpus) == 2 * ngpu,
              f"auto with {ngpu} GPU(s): GPU backend, one GetStatus entry per GPU worker")
        check(all(g.name and g.vram_total_bytes > 0 for g in gs.gpus), "GPU names and VRAM reported")
        check(vals.get("cuzk_gpu_devices") == ngpu and "cuzk_gpu_info{" in text, "metrics name the GPUs")
    if cuda_build:  # CUDA loads every kernel at startup (none mid-partition) unless the environment chose a mode
        want = os.environ.get("CUDA_MODULE_LOADING", "EAGER")
        check(f"CUDA_MODULE_LOADING={want}" in log, f"the daemon logs CUDA_MODULE_LOADING={want}")
    r = S.Prove(pb.ProveRequest(submit=submit_req("auto-1")), timeout=300).result
    check(r.status == pb.AwaitProofResponse.COMPLETED and len(r.proof) == 384,
          f"auto backend proves (test circuit, {r.gpu_compute_ms} ms) {r.error_message}")
finally:
    check(d.stop() == 0, "daemon exits 0")

# "gpu": required. Without a GPU the daemon stops at startup with a clear message, exit 1.
if ngpu == 0:
    cfgdir = os.path.join(os.path.dirname(d.dir), "gpu-cfg")
    os.makedirs(cfgdir, exist_ok=True)
    cfg = os.path.join(cfgdir, "cuzk.toml")
    with open(cfg, "w") as f:
        f.write(CONFIG.replace("{http}", "0").replace("{params}", cfgdir)
                .replace("{sock}", os.path.join(cfgdir, "s.sock")) % "gpu")
    p = subprocess.run([os.path.join(BUILD, "cuzk"), "--config", cfg], capture_output=True, text=True, timeout=60)
    want = "no CUDA device found" if cuda_build else "this build has no CUDA"
    check(p.returncode == 1 and 'gpus.backend = "gpu"' in p.stderr and want in p.stderr,
          f"backend gpu without a GPU: exit {p.returncode}, {p.stderr.strip()[-160:]!r}")
else:
    print("GPU present: the no-GPU startup error is not exercised here")

# "cpu": always the CPU backend. A CUDA_MODULE_LOADING of the environment wins over the daemon's EAGER (and is logged
# as such).
d = Daemon(CONFIG % "cpu", name="cpu", env={"CUDA_MODULE_LOADING": "LAZY"})
S, _ = d.stub()
try:
    import json
    st = json.loads(d.http("/status")[2])
    check(st["backend"] == "cpu" and st["gpus"] == [] and len(S.GetStatus(pb.GetStatusRequest()).gpus) == 0,
          "backend cpu: CPU backend, no GPUs")
    if cuda_build:
        check("CUDA_MODULE_LOADING=LAZY (from the environment" in d.logtext(), "CUDA_MODULE_LOADING from the environment kept")
finally:
    check(d.stop() == 0, "daemon exits 0")
finish()
