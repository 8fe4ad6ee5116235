"""e2e: Synthetic PoRep (registered proof 10) and NI-PoRep (15) C1s are accepted by the daemon, and official
parameter files are checked against parameters.json's digest before they are decoded. The C1s are 2 KiB
sectors sealed in memory by cz_tool_c1_gen (fresh seed each run), sent in the Commit2In wrapper as Curio does.
srs.param_cache holds a fake official 2 KiB file (sections of the right layout, random bytes for the points, under
the official name), so an accepted job
runs into the digest check at once instead of a minutes-long proof: FAILED, naming the digest of the file
(checked here against Python's hashlib BLAKE2b-512, first 16 bytes) and the one parameters.json gives; with
srs.verify_digest = false the same file gets to the decoder and fails there. The digest memo: a mismatch leaves
none, a memo of the file as it is skips the hash, a touched file is hashed again and its stale memo removed. Rejected at submit
(INVALID_ARGUMENT): an NI C1 missing one of its 13 partitions, a Synthetic C1 relabelled as NI, a Synthetic
C1 under a registered_proof of another sector size. The full proofs are slow_porep_kinds.py.
Usage: test_porep_kinds.py BUILD_DIR SOURCE_DIR."""
import base64, hashlib, json, os, random, subprocess
from cuzk_e2e import BUILD, TMP, Daemon, check, finish, pb, grpc, tiny_params

C = pb.AwaitProofResponse
IA = grpc.StatusCode.INVALID_ARGUMENT
NAME = ("v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
        "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params")
PJSON = os.path.join(os.environ.get("CZ_FIXTURES_DIR") or "/work/shared/fixtures/real",
                     "filecoin-project+rust-fil-proofs", "parameters.json")
WANT = json.load(open(PJSON))[NAME]["digest"] if os.path.exists(PJSON) else "434fb1338ecfaf0f59256f30dde4968f"
PDIR = os.path.join(TMP, "kinds-params")
os.makedirs(PDIR)
# sections that count right (else the load refuses it from its headers before any digest), random bytes for points
fake = tiny_params(os.urandom(96 * (40 + random.randrange(40))))
with open(os.path.join(PDIR, NAME), "wb") as f:
    f.write(fake)
GOT = hashlib.blake2b(fake, digest_size=64).digest()[:16].hex()  # go-paramfetch: blake2b-512, first 16 bytes
CONFIG = """
[daemon]
listen = "unix://{sock}"
status_listen = "127.0.0.1:{http}"
[srs]
param_cache = "%s"
local_cache = "%s/local"
%s
"""


def sealed(proof_id):
    path = os.path.join(TMP, f"c1-{proof_id}.json")
    subprocess.run([os.path.join(BUILD, "tests", "cz_tool_c1_gen"), str(proof_id), str(random.getrandbits(63)), path],
                   check=True, capture_output=True, timeout=120)
    return json.load(open(path))


def wrap(inner):
    return json.dumps({"SectorNum": 1, "Phase1Out": base64.b64encode(json.dumps(inner).encode()).decode(),
                       "SectorSize": 2048}).encode()


def req(rid, inner, registered_proof):
    return pb.SubmitProofRequest(request_id=rid, proof_kind=1, sector_size=2048, registered_proof=registered_proof,
                                 vanilla_proof=wrap(inner), sector_number=1, miner_id=1000)


def code_msg(fn, r):
    try:
        fn(r)
        return grpc.StatusCode.OK, ""
    except grpc.RpcError as e:
        return e.code(), e.details()


syn, ni = sealed(10), sealed(15)
P = "StackedDrg2KiBV1"
check(syn["registered_proof"] == "StackedDrg2KiBV1_1_Feat_SyntheticPoRep" and len(syn["vanilla_proofs"][P]) == 1,
      "cz_tool_c1_gen: a 2 KiB SyntheticPoRep C1, 1 partition")
check(ni["registered_proof"] == "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep" and len(ni["vanilla_proofs"][P]) == 13,
      "cz_tool_c1_gen: a 2 KiB NI-PoRep C1, 13 partitions")

d = Daemon(CONFIG % (PDIR, TMP, ""), name="kinds", test_circuit=False)
S, _ = d.stub()
try:
    for rid, inner, rp in (("syn", syn, 10), ("ni", ni, 15)):
        code, msg = code_msg(S.SubmitProof, req(rid, inner, rp))
        check(code == grpc.StatusCode.OK, f"{inner['registered_proof']} accepted at submit ({code.name} {msg})")
        r = S.AwaitProof(pb.AwaitProofRequest(job_id=rid), timeout=120)
        check(r.status == C.FAILED and GOT in r.error_message and WANT in r.error_message and NAME in r.error_message,
              f"{rid}: FAILED at the digest check, naming {GOT} (hashlib) and {WANT}: {r.error_message[-200:]}")
    bad = json.loads(json.dumps(ni))
    bad["vanilla_proofs"][P].pop()
    code, msg = code_msg(S.SubmitProof, req("ni-12", bad, 15))
    check(code == IA and "13" in msg, f"NI C1 with 12 of 13 partitions -> {code.name}: {msg[:160]}")
    relab = dict(syn, registered_proof="StackedDrg2KiBV1_2_Feat_NonInteractivePoRep")
    code, msg = code_msg(S.SubmitProof, req("syn-as-ni", relab, 15))
    check(code == IA and "partition" in msg, f"Synthetic C1 relabelled NI -> {code.name}: {msg[:160]}")
    code, msg = code_msg(S.SubmitProof, req("syn-8m", syn, 11))
    check(code == IA and "8MiB" in msg, f"registered_proof 11 (8 MiB) for a 2 KiB sector -> {code.name}: {msg[:120]}")
    st = S.GetStatus(pb.GetStatusRequest())
    check(st.total_proofs_failed == 2 and not any(x.circuit_id == "porep-2k" and x.tier == pb.SRSStatus.HOT
                                                  for x in st.loaded_srs), "2 failed, the fake SRS never became HOT")
    check(f"got {GOT}" in d.logtext(), "the log names the digest")
finally:
    check(d.stop() == 0, "daemon exits 0")

# The digest memo (<local_cache>/cuzk-digest-<name>.ok: the file's identity when its digest matched): a mismatch
# leaves none; a memo naming the file as it is and parameters.json's digest skips the hash (so this fake file
# reaches the decoder); once the file is touched the memo no longer applies, the hash runs and fails again, and
# the stale memo is removed.
MEMO = os.path.join(TMP, "local", "cuzk-digest-" + NAME + ".ok")
check(not os.path.exists(MEMO), "a digest mismatch leaves no memo")
FPATH = os.path.join(PDIR, NAME)


def plant_memo():
    os.makedirs(os.path.dirname(MEMO), exist_ok=True)
    st = os.stat(FPATH)
    ns = lambda t: "%d.%09d" % divmod(t, 10**9)
    with open(MEMO, "w") as f:
        f.write(f"cuzk-digest-v1 {st.st_dev} {st.st_ino} {st.st_size} {ns(st.st_mtime_ns)} {ns(st.st_ctime_ns)} {WANT}\n")


plant_memo()
for name, touch in (("memo", False), ("memo-stale", True)):
    if touch:
        os.utime(FPATH, ns=(os.stat(FPATH).st_atime_ns, os.stat(FPATH).st_mtime_ns + 10**9))
    d = Daemon(CONFIG % (PDIR, TMP, ""), name=name, test_circuit=False)
    S, _ = d.stub()
    try:
        r = S.Prove(pb.ProveRequest(submit=req("syn-" + name, syn, 10)), timeout=300).result
        if not touch:
            check(r.status == C.FAILED and "digest" not in r.error_message and "unchanged since it was checked"
                  in d.logtext(), f"a memo of this file: no hash, the fake file reaches the decoder ({r.error_message[:120]})")
        else:
            check(r.status == C.FAILED and GOT in r.error_message and not os.path.exists(MEMO),
                  f"the file touched: the memo is ignored, the hash fails again and the memo is gone ({r.error_message[-120:]})")
    finally:
        check(d.stop() == 0, "daemon exits 0")

d = Daemon(CONFIG % (PDIR, TMP, "verify_digest = false"), name="nodigest", test_circuit=False)
S, _ = d.stub()
try:
    r = S.Prove(pb.ProveRequest(submit=req("syn2", syn, 10)), timeout=300).result
    check(r.status == C.FAILED and "digest" not in r.error_message,
          f"verify_digest = false: the fake file reaches the decoder ({r.error_message[:160]})")
finally:
    check(d.stop() == 0, "daemon exits 0")
finish()
