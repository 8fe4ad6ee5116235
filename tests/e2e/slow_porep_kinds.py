"""e2e (slow): real 2 KiB Synthetic PoRep (registered proof 10) and NI-PoRep (15) C2 proofs through the daemon.
The C1s are 2 KiB sectors sealed in memory by cz_tool_c1_gen (fresh seed each run) in Curio's Commit2In
wrapper; the daemon proves them with the real circuit and the 2 KiB parameters (official file when present in
param_cache, else the seeded local setup cached in build/srs-cache, shared with slow_porep_2k.py) and verifies
every partition against public inputs derived from public values before COMPLETED. Synthetic: 1 partition,
192 bytes; NI: 13 partitions, 2,496 bytes (on 2 CPU cores about 2 min per partition).
Usage: slow_porep_kinds.py BUILD_DIR SOURCE_DIR."""
import base64, json, os, random, subprocess, time
from cuzk_e2e import BUILD, SEEDED_CONFIG as CONFIG, TMP, Daemon, check, finish, pb

C = pb.AwaitProofResponse


def sealed_wrapper(proof_id):
    path = os.path.join(TMP, f"c1-{proof_id}.json")
    subprocess.run([os.path.join(BUILD, "tests", "cz_tool_c1_gen"), str(proof_id), str(random.getrandbits(63)), path],
                   check=True, capture_output=True, timeout=120)
    inner = open(path, "rb").read()
    return json.dumps({"SectorNum": 1, "Phase1Out": base64.b64encode(inner).decode(), "SectorSize": 2048}).encode()


d = Daemon(CONFIG, name="kinds-slow", test_circuit=False)
S, _ = d.stub()
try:
    for rid, pid, parts in (("synthetic-2k", 10, 1), ("ni-2k", 15, 13)):
        t = time.time()
        r = S.Prove(pb.ProveRequest(submit=pb.SubmitProofRequest(
            request_id=rid, proof_kind=1, sector_size=2048, registered_proof=pid, vanilla_proof=sealed_wrapper(pid),
            sector_number=1, miner_id=1000)), timeout=3300).result
        check(r.status == C.COMPLETED and len(r.proof) == 192 * parts and not r.error_message,
              f"{rid}: COMPLETED, {parts} x 192 B ({time.time() - t:.0f} s: synthesis {r.synthesis_ms} ms, "
              f"prove {r.gpu_compute_ms} ms) {r.error_message}")
    st = S.GetStatus(pb.GetStatusRequest())
    check(st.total_proofs_completed == 2 and st.total_proofs_failed == 0, "2 proofs completed, none failed")
finally:
    check(d.stop() == 0, "daemon exits 0")
finish()
