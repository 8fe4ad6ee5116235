"""e2e (slow): a real 2 KiB SnapDeals proof submitted by cuzk-bench. `gen-vanilla snap-prove` writes the
partition proof of a fresh synthetic updated sector (a JSON array of base64 bincode PartitionProofs) and prints
the `single` command with the three commitments; the daemon verifies the vanilla proof, proves the snap-2k
circuit with the seeded local setup (~30 s on 2 cores the first time, cached in build/srs-cache) and checks
the proof before COMPLETED. Checked here too, independently of the daemon's verifier: the 192-byte proof
verifies under @noble/curves with the vk read from the parameter file and the public inputs
(k_and_h_select, comm_r_old, comm_d_new, comm_r_new) computed here from the printed commitments; comm_d_new
+ 1 does not.
Usage: slow_bench_snap.py BUILD_DIR SOURCE_DIR."""
import os, re, subprocess
from cuzk_e2e import BUILD, R_FR as R, SEEDED_CONFIG as CONFIG, SRS_CACHE, TMP, Daemon, check, finish, noble_verify as noble

B = os.path.join(BUILD, "cuzk-bench")


def bench(*args, timeout=120):
    r = subprocess.run([B, *args], capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr


d = Daemon(CONFIG, name="snap2k", test_circuit=False)
try:
    path = os.path.join(TMP, "snap-vanilla.json")
    rc, out, err = bench("gen-vanilla", "snap-prove", "--sector-size", "2048", "-o", path)
    m = re.search(r"^submit: cuzk-bench (.*)$", out, re.M)
    cmd = m.group(1).split() if m else []
    check(rc == 0 and "--comm-d-new" in cmd, "gen-vanilla snap-prove: the file and the submit line " + err.strip())
    rc, out, err = bench("-a", d.unix, *cmd, timeout=1800)
    pm = re.search(r"^proof: 192 bytes\n([0-9a-f]{384})$", out, re.M)
    check(rc == 0 and "status: COMPLETED" in out and pm, f"single -t snap: a real 2 KiB SnapDeals proof COMPLETED "
          f"({' '.join(l for l in out.splitlines() if l.startswith(('timings', 'wall')))}) {err.strip()[:200]}")
    log = d.logtext()
    params = os.path.join(SRS_CACHE, "cuzk-test-snap-2k.params")
    check("circuit=snap-2k" in log and os.path.exists(params), "circuit snap-2k, its seeded parameters cached")
    if pm and os.path.exists(params):
        comm = {k: int.from_bytes(bytes.fromhex(cmd[cmd.index("--" + k) + 1]), "little")
                for k in ("comm-r-old", "comm-d-new", "comm-r-new")}
        # 2 KiB: one partition (k = 0, 0 partition bits) and h = 1, the first allowed value: k_and_h_select = 1
        ins = [1, comm["comm-r-old"], comm["comm-d-new"], comm["comm-r-new"]]
        proof = bytes.fromhex(pm.group(1))
        rc, o = noble(params, proof, ins)
        check(rc == 0 and "OK" in o, f"the proof verifies under @noble/curves ({o})")
        rc, o = noble(params, proof, [ins[0], ins[1], (ins[2] + 1) % R, ins[3]])
        check(rc == 1, f"comm_d_new + 1 does not verify ({o})")
finally:
    check(d.stop() == 0, "daemon exits 0")
finish()
