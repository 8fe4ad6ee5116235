"""e2e (slow): a real 2 KiB PoRep C2 through the daemon over gRPC. cuzk-bench gen-vanilla writes a fresh
synthetic C1 (Commit2In wrapper, as Curio sends it); the daemon parses and verifies it, synthesizes the real
StackedDrg circuit (2,687,921 constraints), proves with its parameters (the official file when present in
param_cache, else the seeded local setup cached in build/srs-cache: minutes the first time) and checks the
proof against public inputs derived from public values before it answers COMPLETED. Checked here too,
independently of the daemon's verifier: the 192-byte proof verifies under @noble/curves with the vk read
from the parameter file and the public inputs printed by cz_tool_c1_inputs from the C1 alone; one input + 1
does not. A tampered C1 sent first is rejected and the daemon still proves the good one.
Usage: slow_porep_2k.py BUILD_DIR SOURCE_DIR."""
import os, subprocess, time
from cuzk_e2e import (BUILD, R_FR as R, SEEDED_CONFIG as CONFIG, SRS_CACHE, TMP, Daemon, check, finish, pb, gen_c1,
                      c1_unwrap, c1_wrap, grpc, noble_verify as noble)

C = pb.AwaitProofResponse


def public_inputs(c1_bytes):
    path = os.path.join(TMP, "c1-inputs.json")
    with open(path, "wb") as f:
        f.write(c1_bytes)
    tool = os.path.join(BUILD, "tests", "cz_tool_c1_inputs")
    out = subprocess.run([tool, path], capture_output=True, text=True, timeout=120).stdout
    return [int(x, 16) for x in out.split() if len(x) == 64]


good = gen_c1()
w, inner = c1_unwrap(good)
bad_inner = dict(inner, comm_r=[inner["comm_r"][0] ^ 1] + inner["comm_r"][1:])
d = Daemon(CONFIG, name="porep2k", test_circuit=False)
S, _ = d.stub()
try:
    req = dict(proof_kind=1, sector_size=2048, registered_proof=5, sector_number=1, miner_id=1000)
    try:  # Prove answers as cuzk: an OK RPC carrying FAILED and the reason
        rb = S.Prove(pb.ProveRequest(submit=pb.SubmitProofRequest(request_id="bad", vanilla_proof=c1_wrap(w, bad_inner),
                                                                  **req)), timeout=60).result
        code = "FAILED" if rb.status == pb.AwaitProofResponse.FAILED and rb.error_message else rb.status
    except grpc.RpcError as e:
        code = e.code()
    check(code == "FAILED", f"a tampered C1 is rejected first ({code})")
    t = time.time()
    r = S.Prove(pb.ProveRequest(submit=pb.SubmitProofRequest(request_id="real-2k", vanilla_proof=good, **req)),
                timeout=3000).result
    wall = time.time() - t
    check(r.status == C.COMPLETED and len(r.proof) == 192 and not r.error_message,
          f"real 2 KiB PoRep COMPLETED, one 192-byte partition proof ({wall:.1f} s: srs_load {r.srs_load_ms} ms, "
          f"synthesis {r.synthesis_ms} ms, prove {r.gpu_compute_ms} ms) {r.error_message}")
    log = d.logtext()
    check("circuit=porep-2k" in log and "built-in TEST circuit" not in log, "the real circuit proved it, not the test one")
    params = os.path.join(SRS_CACHE, "cuzk-test-porep-2k.params")
    check(os.path.exists(params) and ("seeded" in log), "parameters: the seeded local setup, cached (the log says so)")
    ins = public_inputs(good)
    check(len(ins) == 39 and all(0 <= x < R for x in ins), f"cz_tool_c1_inputs: 39 public inputs from the C1 alone")
    if r.status == C.COMPLETED and len(ins) == 39:
        rc, out = noble(params, r.proof, ins)
        check(rc == 0 and "OK" in out, f"the proof verifies under @noble/curves ({out})")
        rc, out = noble(params, r.proof, [ins[0]] + [(ins[1] + 1) % R] + ins[2:])
        check(rc == 1, f"comm_d + 1 does not verify ({out})")
    # A sealed sector's C1 (the gpuproxy 2KiB.json fixture: miner f01001, sector 0), when the fixtures are here.
    fx = os.path.join(os.environ.get("CZ_FIXTURES_DIR") or "/work/shared/fixtures/real",
                      "ipfs-force-community+gpuproxy", "2KiB.json")
    n_done = 1
    if os.path.exists(fx):
        real = open(fx, "rb").read()
        r2 = S.Prove(pb.ProveRequest(submit=pb.SubmitProofRequest(request_id="sealed-2k", vanilla_proof=real,
                                                                  **dict(req, sector_number=0, miner_id=1001))),
                     timeout=3000).result
        check(r2.status == C.COMPLETED and len(r2.proof) == 192 and r2.srs_load_ms == 0,
              f"the sealed sector's C1 (gpuproxy 2KiB.json) proves too, SRS reused (prove {r2.gpu_compute_ms} ms)")
        ins2 = public_inputs(real)
        if r2.status == C.COMPLETED and len(ins2) == 39:
            rc, out = noble(params, r2.proof, ins2)
            check(rc == 0, f"and verifies under @noble/curves ({out})")
            rc, out = noble(params, r2.proof, ins)
            check(rc == 1, f"but not with the synthetic C1's inputs ({out})")
        n_done = 2
    else:
        print("gpuproxy 2KiB.json fixture not found (CZ_FIXTURES_DIR): sealed-sector proof skipped")
    st = S.GetStatus(pb.GetStatusRequest())
    s = {x.circuit_id: x for x in st.loaded_srs}.get("porep-2k")
    check(s and s.tier == pb.SRSStatus.HOT and st.total_proofs_completed == n_done,
          f"porep-2k SRS HOT, {n_done} proof(s) completed")
finally:
    check(d.stop() == 0, "daemon exits 0")
finish()
