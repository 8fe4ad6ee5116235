"""e2e: cuzk-bench against the daemon (single, batch, status, preload, evict, metrics, cancel, gen-vanilla),
over TCP and the unix socket."""
import os, re, subprocess
from cuzk_e2e import BUILD, TMP, Daemon, check, finish, prom_check, c1_unwrap

CONFIG = """
[daemon]
listen = "unix://{sock},127.0.0.1:{port}"
[srs]
param_cache = "{params}"
"""
B = os.path.join(BUILD, "cuzk-bench")
d = Daemon(CONFIG, name="bench")


def bench(*args):
    r = subprocess.run([B, *args], capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout, r.stderr


try:
    U, T = ["-a", d.unix], ["-a", "http://" + d.tcp]
    rc, out, _ = bench(*U, "preload", "-c", "porep-2k-test")
    check(rc == 0 and ("loaded in" in out or "already loaded" in out), "preload: " + out.strip())
    rc, out, err = bench(*U, "preload", "--circuit-id", "nope")
    check(rc == 1 and "status 5" in err, "preload of an unknown id fails with NOT_FOUND (5)")
    rc, out, _ = bench(*T, "single", "-t", "porep")
    check(rc == 0 and "=== Proof Result ===" in out and "status: COMPLETED" in out and "proof: 384 bytes" in out
          and re.search(r"timings: total=\d+ ms \(queue=\d+ ms, srs=\d+ ms, synth=\d+ ms, gpu=\d+ ms\)", out),
          "single -t porep over TCP (synthetic 2 KiB C1): COMPLETED, 384 bytes")
    c1 = os.path.join(TMP, "c1.json")
    rc, out, _ = bench("gen-vanilla", "porep", "-o", c1)
    check(rc == 0 and os.path.getsize(c1) > 0, "gen-vanilla porep writes a C1 wrapper")
    w, inner = c1_unwrap(open(c1, "rb").read())
    parts = inner["vanilla_proofs"]["StackedDrg2KiBV1"]
    check(w["SectorSize"] == 2048 and inner["registered_proof"] == "StackedDrg2KiBV1_1" and len(parts) == 1
          and len(parts[0]) == 2 and len(parts[0][0]["labeling_proofs"]) == 2,
          "the wrapper holds a 2 KiB SealCommitPhase1Output: 1 partition x 2 challenges, 2 layers")
    tool = os.path.join(BUILD, "tests", "cz_tool_c1_inputs")
    for size, name in ((2048, "2 KiB"), (8 << 20, "8 MiB")):
        path = os.path.join(TMP, f"c1-{size}.json")
        rc, out, _ = bench("gen-vanilla", "porep", "--sector-size", str(size), "-o", path)
        r = subprocess.run([tool, path], capture_output=True, text=True, timeout=120)
        check(rc == 0 and r.returncode == 0 and "partition 0: vanilla proofs verify" in r.stdout,
              f"gen-vanilla {name}: cz_tool_c1_inputs verifies its vanilla proofs")
    rc, out, _ = bench(*U, "batch", "--c1", c1, "-c", "3", "-j", "2")
    check(rc == 0 and out.count("COMPLETED —") == 3 and "completed: 3, failed: 0" in out
          and re.search(r"throughput: [\d.]+ proofs/min \([\d.]+s/proof\)", out), "batch -c 3 -j 2 over unix: 3 COMPLETED")
    rc, out, _ = bench(*U, "single", "-t", "winning", "--vanilla", c1)
    check(rc == 1, "single -t winning fails (no circuit yet) with a non-zero exit")
    rc, out, _ = bench(*U, "status")
    check(rc == 0 and "proofs: 4 completed, 0 failed" in out and "porep-2k-test" in out and "hot" in out, "status shows counts and SRS")
    rc, out, _ = bench(*U, "metrics")
    check(rc == 0 and prom_check(out)[0] and "cuzk_proofs_completed_total 4" in out, "metrics prints Prometheus text")
    rc, out, _ = bench(*U, "cancel", "--job-id", "nope")
    check(rc == 1, "cancel of an unknown job fails")
    rc, out, _ = bench(*U, "evict", "-c", "porep-2k-test")
    check(rc == 0 and "evicted" in out, "evict: " + out.strip())
finally:
    check(d.stop() == 0, "daemon exits 0")
finish()
