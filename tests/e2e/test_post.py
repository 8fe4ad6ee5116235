"""e2e: WindowPoSt and WinningPoSt over gRPC with the request fields Curio sets (cuzk-spec §1: registered_proof
= RegisteredPoStProof, vanilla_proofs = bincode FallbackPoStSectorProof each, randomness with byte 31 masked,
partition_index). Vanilla proofs come from cz_tool_post_gen (synthetic sectors answering the real challenges
of a fresh random randomness). A real 2 KiB WindowPoSt proof (2-sector circuit; seeded local setup, seconds)
completes with 192 bytes verified by the daemon before COMPLETED, with the default HIGH priority, and again with
sector_size unset (the size registered_proof names, as for Curio's proof-share requests); rejected at
submit with INVALID_ARGUMENT: another randomness, another partition_index (V1), a Winning registered_proof on a
Window request (with and without sector_size), randomness not masked, a truncated proof; WinningPoSt with 2 proofs. 32 GiB WindowPoSt
without its parameter file is FAILED_PRECONDITION naming the official file. Real sealed sectors (venus' two pre-sealed
2 KiB replicas, read in place) through `cuzk-bench gen-vanilla --sealed --cache --comm-r`: a WindowPoSt of both and a
WinningPoSt of one complete.
Usage: test_post.py BUILD_DIR SOURCE_DIR."""
import base64, json, os, random, subprocess
from cuzk_e2e import BUILD, SRC, TMP, Daemon, check, finish, pb, grpc

C = pb.AwaitProofResponse
VENUS = os.path.join("filecoin-project+venus", "genesis-sectors")
IA, FP = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION
PDIR = os.path.join(TMP, "post-params")
os.makedirs(PDIR)
CONFIG = """
[daemon]
listen = "unix://{sock}"
[srs]
param_cache = "%s"
""" % PDIR


def rnd():
    b = bytearray(os.urandom(32))
    b[31] &= 0x3F
    return bytes(b)


def gen(kind, v12, randomness, k, n):
    out = subprocess.run([os.path.join(BUILD, "tests", "cz_tool_post_gen"), kind, "2048", str(int(v12)),
                          randomness.hex(), str(k), str(n), str(random.getrandbits(40))],
                         check=True, capture_output=True, text=True, timeout=60).stdout
    return [bytes.fromhex(x) for x in out.split()]


def req(rid, kind, reg, vanillas, randomness, k=0, size=2048):
    return pb.SubmitProofRequest(request_id=rid, proof_kind=kind, sector_size=size, registered_proof=reg,
                                 vanilla_proofs=vanillas, randomness=randomness, partition_index=k, miner_id=1000)


def code_msg(fn, r):
    try:
        fn(r)
        return grpc.StatusCode.OK, ""
    except grpc.RpcError as e:
        return e.code(), e.details()


R, k = rnd(), random.randrange(3)
w = gen("window", True, R, k, 2)
w1 = gen("window", False, R, k, 1)  # V1: challenges depend on the sector's index (partition_index)
win2 = gen("winning", False, R, 0, 2)
check(len(w) == 2 and all(len(x) > 100 for x in w), f"cz_tool_post_gen: 2 WindowPoSt sector proofs ({len(w[0])} B)")
d = Daemon(CONFIG, name="post", test_circuit=False)
S, _ = d.stub()
try:
    cases = [
        ("another randomness", req("r1", 3, 10, w, rnd(), k), IA, "does not verify"),
        ("V1: another partition_index", req("r2", 3, 5, w1, R, k + 1), IA, "does not verify"),
        ("Winning registered_proof on a Window request", req("r3", 3, 0, w, R, k), IA, "Winning"),
        ("randomness byte 31 not masked", req("r4", 3, 10, w, R[:31] + bytes([R[31] | 0x80]), k), IA, "field element"),
        ("truncated sector proof", req("r5", 3, 10, [w[0], w[1][:-5]], R, k), IA, "vanilla_proofs[1]"),
        ("WinningPoSt with 2 proofs", req("r6", 4, 0, win2, R), IA, "exactly 1"),
        ("no sector_size and a Winning registered_proof on a Window request", req("r8", 3, 0, w, R, k, 0), IA,
         "names no window-post sector size"),
        ("32 GiB WindowPoSt without its file", req("r7", 3, 13, w, R, k, 32 << 30), FP,
         "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.params"),
    ]
    for what, r, want, word in cases:
        code, msg = code_msg(S.SubmitProof, r)
        check(code == want and word in msg, f"{what} -> {want.name} ({code.name}): {msg[:150]}")
    r = S.Prove(pb.ProveRequest(submit=req("wpost-real", 3, 10, w, R, k)), timeout=280).result
    check(r.status == C.COMPLETED and len(r.proof) == 192,
          f"real 2 KiB WindowPoSt (partition {k}): COMPLETED, 192 B (synthesis {r.synthesis_ms} ms, prove "
          f"{r.gpu_compute_ms} ms) {r.error_message}")
    log = d.logtext()
    check("circuit=wpost-2k" in log and "priority=3" in log, "circuit wpost-2k, default priority HIGH")
    # sector_size unset, as Curio's proof-share requests send Snap: the size registered_proof 10 names (2 KiB)
    r = S.Prove(pb.ProveRequest(submit=req("wpost-nosize", 3, 10, w, R, k, 0)), timeout=280).result
    check(r.status == C.COMPLETED and len(r.proof) == 192,
          f"2 KiB WindowPoSt without sector_size: COMPLETED, 192 B {r.error_message}")
    done = 2
    # real sealed sectors: venus' two pre-sealed 2 KiB replicas and their cache directories (read in place), through
    # `cuzk-bench gen-vanilla --sealed --cache --comm-r CID`: a WindowPoSt of both and a WinningPoSt of one complete
    fx = next((x for x in (os.environ.get("CZ_FIXTURES_DIR", ""), os.path.join(SRC, "..", "shared", "fixtures", "real"),
                           "/work/shared/fixtures/real") if x and os.path.isdir(os.path.join(x, VENUS))), None)
    if fx is None:
        print("venus genesis sectors not found: the sealed-sector PoSt skipped")
    else:
        v = os.path.join(fx, VENUS)
        with open(os.path.join(v, "pre-seal-t0106.json")) as f:
            cids = [x["CommR"]["/"] for x in json.load(f)["t0106"]["Sectors"]]

        def sealed(kind, s, cid, extra=()):
            out = os.path.join(TMP, f"sealed-{kind}-{s}.json")
            p = subprocess.run([os.path.join(BUILD, "cuzk-bench"), "gen-vanilla", kind, "--sector-size", "2048",
                                "--sealed", os.path.join(v, "sealed", f"s-t0106-{s}"), "--cache",
                                os.path.join(v, "cache", f"s-t0106-{s}"), "--comm-r", cid, "--sector-number", str(s),
                                "--randomness", R.hex(), "-o", out, *extra], capture_output=True, text=True, timeout=60)
            if p.returncode:
                return None, p.stderr
            with open(out) as f:
                return [base64.b64decode(x) for x in json.load(f)], p.stdout

        got = [sealed("window-post", s, cids[s]) for s in (0, 1)]
        check(all(g[0] and len(g[0]) == 1 for g in got) and "1 of 1 subtree(s) from the cache" in got[0][1],
              f"gen-vanilla --sealed: a Window PoSt sector proof of each venus sector ({got[0][1].splitlines()[:1]})")
        bad = sealed("window-post", 0, cids[1])
        check(bad[0] is None and "not the sector's comm_r" in bad[1],
              f"gen-vanilla --sealed under the other CID: {bad[1]}")
        if all(g[0] for g in got):
            r = S.Prove(pb.ProveRequest(submit=req("wpost-sealed", 3, 10, [got[0][0][0], got[1][0][0]], R, 0)),
                        timeout=280).result
            check(r.status == C.COMPLETED and len(r.proof) == 192,
                  f"2 KiB WindowPoSt of two real sealed sectors: COMPLETED, 192 B {r.error_message}")
            done += r.status == C.COMPLETED
        win = sealed("winning-post", 1, cids[1])
        if win[0]:
            r = S.Prove(pb.ProveRequest(submit=req("winning-sealed", 4, 0, win[0], R)), timeout=280).result
            check(r.status == C.COMPLETED and len(r.proof) == 192,
                  f"2 KiB WinningPoSt of a real sealed sector: COMPLETED, 192 B {r.error_message}")
            done += r.status == C.COMPLETED
        else:
            check(False, f"gen-vanilla winning-post --sealed: {win[1]}")
    st = S.GetStatus(pb.GetStatusRequest())
    check(st.total_proofs_completed == done and st.total_proofs_failed == 0, f"{done} completed, nothing failed")
finally:
    check(d.stop() == 0, "daemon exits 0")
finish()
