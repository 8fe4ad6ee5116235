"""e2e: the real PoRep circuit rejects bad requests at submit, before anything is queued or any SRS is loaded:
bad C1 JSON, wrong sector size / registered proof, a sound C1 of another sector or miner, tampered vanilla proofs
(the message names partition, challenge and field), a C1 under another kind's name, unsupported proof kinds; the
daemon keeps serving. A fresh synthetic C1 from cuzk-bench gen-vanilla is the base every tamper starts from. Fast:
nothing is proved (the real 2 KiB proof is slow_porep_2k.py). Usage: test_porep_reject.py BUILD_DIR SOURCE_DIR."""
import base64, copy, json, os
from cuzk_e2e import TMP, Daemon, check, finish, pb, gen_c1, c1_unwrap, c1_wrap, grpc

IA, UN, FP = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.FAILED_PRECONDITION
# The param dir holds a placeholder 8 MiB file: enough for "parameters exist", so an 8 MiB request reaches the
# C1 checks (it is rejected there and never loaded).
PDIR = os.path.join(TMP, "reject-params")
os.makedirs(PDIR)
with open(os.path.join(PDIR, "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
                       "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.params"), "wb") as f:
    f.write(b"placeholder")
CONFIG = """
[daemon]
listen = "unix://{sock}"
status_listen = "127.0.0.1:{http}"
[srs]
param_cache = "%s"
local_cache = "{srs_cache}"
""" % PDIR


def req(rid, vanilla, sector_size=2048, registered_proof=5, kind=1, sector_number=1, miner_id=1000, **extra):
    return pb.SubmitProofRequest(request_id=rid, proof_kind=kind, sector_size=sector_size,
                                 registered_proof=registered_proof, vanilla_proof=vanilla, sector_number=sector_number,
                                 miner_id=miner_id, **extra)


def outcome(fn, r):
    try:
        fn(r)
        return grpc.StatusCode.OK, ""
    except grpc.RpcError as e:
        return e.code(), e.details()


def prove_outcome(r):
    """Prove as cuzk answers a request it cannot prove: an OK RPC whose result is FAILED ("FAILED", message)."""
    try:
        res = S.Prove(pb.ProveRequest(submit=r)).result
        return ("FAILED" if res.status == pb.AwaitProofResponse.FAILED else res.status), res.error_message
    except grpc.RpcError as e:
        return e.code(), e.details()


good = gen_c1()
w, inner = c1_unwrap(good)
P = "StackedDrg2KiBV1"
check(inner["registered_proof"] == "StackedDrg2KiBV1_1" and len(inner["vanilla_proofs"][P]) == 1
      and len(inner["vanilla_proofs"][P][0]) == 2, "gen-vanilla writes a 2 KiB C1: 1 partition x 2 challenges")


def tampered(fn):
    i = copy.deepcopy(inner)
    fn(i)
    return c1_wrap(w, i)


def flip(b32):  # bit 0 of the lowest byte: stays below the field modulus, changes the value
    b32[0] ^= 1


def set_seed(i):
    i["seed"] = [(x + 1) % 256 if k == 0 else x for k, x in enumerate(i["seed"])]


cases = [
    ("not JSON", b"{not json", IA, ["C1 wrapper"]),
    ("Phase1Out not base64", b'{"SectorNum":1,"Phase1Out":"@@@@","SectorSize":2048}', IA, ["base64"]),
    ("Phase1Out JSON truncated", json.dumps(dict(w, Phase1Out=base64.b64encode(base64.b64decode(w["Phase1Out"])[:-300])
                                                 .decode())).encode(), IA, ["vanilla_proof: "]),
    ("registered_proof unknown", tampered(lambda i: i.__setitem__("registered_proof", "StackedDrg3KiBV1")), IA,
     ["registered_proof"]),
    ("a path hash missing", tampered(lambda i: i["vanilla_proofs"][P][0][1]["comm_d_proofs"]["data"]["Single"]["path"]
                                      ["path"][2]["hashes"].clear()), IA, ["partition 0 challenge 1", "comm_d_proofs"]),
    ("comm_d path hash tampered", tampered(lambda i: flip(i["vanilla_proofs"][P][0][1]["comm_d_proofs"]["data"]["Single"]
                                                          ["path"]["path"][3]["hashes"][0])), IA,
     ["partition 0 challenge 1", "comm_d_proofs", "does not verify"]),
    ("drg parent row tampered", tampered(lambda i: flip(i["vanilla_proofs"][P][0][0]["replica_column_proofs"]
                                                        ["drg_parents"][2]["column"]["rows"][0])), IA,
     ["partition 0 challenge 0", "drg_parents[2]"]),
    ("comm_r tampered", tampered(lambda i: flip(i["comm_r"])), IA, ["partition 0 challenge 0", "comm_r"]),
    ("seed changed (other challenges)", tampered(set_seed), IA, ["partition 0 challenge ", "interactive rule derives"]),
    ("two partitions for a 2 KiB sector", tampered(lambda i: i["vanilla_proofs"][P].append(i["vanilla_proofs"][P][0])),
     IA, ["holds 2 partition(s)", "has 1 partitions"]),
    ("all-zero seed", tampered(lambda i: i.__setitem__("seed", [0] * 32)), IA, []),
    ("V1_1 C1 relabelled NI-PoRep (1 of 13 partitions)",
     tampered(lambda i: i.__setitem__("registered_proof", "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep")),
     IA, ["NonInteractivePoRep has 13 partitions"]),
]
wrong_size = [
    ("wrapper SectorSize != sector_size", dict(vanilla=good, sector_size=8 << 20, registered_proof=6), IA,
     ["SectorSize"]),
    ("2 KiB C1 sent as 8 MiB", dict(vanilla=c1_wrap(dict(w, SectorSize=8 << 20), inner), sector_size=8 << 20,
                                    registered_proof=6), IA, ["2KiB", "sector_size 8388608"]),
    ("512 MiB without its params file", dict(vanilla=c1_wrap(dict(w, SectorSize=512 << 20), inner),
                                             sector_size=512 << 20, registered_proof=7), FP,
     ["porep-512m", "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.params"]),
    ("registered_proof of 32 GiB for 2 KiB", dict(vanilla=good, registered_proof=8), IA, ["32GiB", "2KiB"]),
    ("registered_proof 42", dict(vanilla=good, registered_proof=42), IA, ["registered_proof 42"]),
    # gen-vanilla's C1 is f01000's sector 1: sound, but its replica_id is not another sector's or miner's
    ("f01000 sector 1's C1 sent as sector 2", dict(vanilla=good, sector_number=2), IA,
     ["replica_id", "not that of miner f01000 sector 2", "would fail on chain"]),
    ("f01000 sector 1's C1 sent for f01001", dict(vanilla=good, miner_id=1001), IA,
     ["replica_id", "not that of miner f01001 sector 1"]),
    ("sector_size 4096", dict(vanilla=good, sector_size=4096), IA, ["sector_size"]),
    ("32 GiB without its params file", dict(vanilla=c1_wrap(dict(w, SectorSize=32 << 30), inner),
                                            sector_size=32 << 30, registered_proof=8), FP,
     ["82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params", "srs.param_cache"]),
    ("WindowPoSt 32 GiB without its params file", dict(vanilla=b"x", kind=3, sector_size=32 << 30), FP,
     ["0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.params"]),
    ("SnapDeals 32 GiB without its params file", dict(vanilla=b"", kind=2, sector_size=32 << 30, registered_proof=3),
     FP, ["3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params"]),
    ("SnapDeals 2 KiB, garbage partition proof",
     dict(vanilla=b"", kind=2, registered_proof=0, vanilla_proofs=[os.urandom(200)], comm_r_old=bytes(32),
          comm_r_new=bytes(32), comm_d_new=bytes(32)), IA, ["vanilla_proofs[0] (partition 0)"]),
    ("SnapDeals 2 KiB without comm_r_old", dict(vanilla=b"", kind=2, registered_proof=0, vanilla_proofs=[b"x"]),
     IA, ["comm_r_old must be 32 bytes"]),
    ("SnapDeals 2 KiB, 2 partition proofs",
     dict(vanilla=b"", kind=2, registered_proof=0, vanilla_proofs=[b"x", b"y"], comm_r_old=bytes(32),
          comm_r_new=bytes(32), comm_d_new=bytes(32)), IA, ["exactly 1"]),
    ("SnapDeals 2 KiB with the 32 GiB update proof", dict(vanilla=b"", kind=2, registered_proof=3), IA,
     ["registered_proof 3"]),
]

d = Daemon(CONFIG, name="reject", test_circuit=False)
S, _ = d.stub()
try:
    for n, (what, vanilla, want, words) in enumerate(cases):
        code, msg = outcome(S.SubmitProof, req(f"bad-{n}", vanilla))
        # Prove: the same refusal as an OK RPC carrying FAILED and the same message (cuzk-spec 1)
        code2, msg2 = prove_outcome(req(f"badp-{n}", vanilla))
        check(code == want and code2 == "FAILED" and all(x in msg and x in msg2 for x in words),
              f"{what} -> Submit {want.name} ({code.name}), Prove FAILED ({code2}): {msg[:160]}")
    for n, (what, kw, want, words) in enumerate(wrong_size):
        kw = dict(kw)
        code, msg = outcome(S.SubmitProof, req(f"size-{n}", kw.pop("vanilla"), **kw))
        check(code == want and all(x in msg for x in words), f"{what} -> {want.name} ({code.name}): {msg[:200]}")
    # a proof_kind cuzk does not know stays a gRPC INVALID_ARGUMENT in Prove too, as cuzk's
    code, msg = prove_outcome(req("badkind", good, kind=9))
    check(code == IA and "invalid proof_kind: 9" in msg, f"Prove with proof_kind 9 -> INVALID_ARGUMENT ({code}): {msg}")
    st = S.GetStatus(pb.GetStatusRequest())
    check(st.total_proofs_completed == st.total_proofs_failed == 0 and not st.queues,
          "nothing was queued: rejected at submit, no failed proofs")
    check("porep-2k" not in {x.circuit_id: x for x in st.loaded_srs if x.tier == pb.SRSStatus.HOT},
          "no SRS was loaded for the rejected requests")
    code, _ = outcome(S.GetMetrics, pb.GetMetricsRequest())
    check(code == grpc.StatusCode.OK and d.proc.poll() is None, "the daemon keeps serving")
finally:
    check(d.stop() == 0, "daemon exits 0")
finish()
