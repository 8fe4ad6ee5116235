"""e2e: proofs returned by the daemon verify under @noble/curves (tests/oracles/daemon_verify.mjs), an oracle
independent of our C verifier, using the vk from the test circuit's cached .params and the public input
recomputed here from the request (the test circuit's derivation, re-implemented in Python). Wrong inputs
and swapped proofs must not verify."""
import os, subprocess
from cuzk_e2e import PARAMS, SRC, Daemon, check, finish, pb, submit_req, c1

ORA = os.path.join(SRC, "tests", "oracles")
if not os.path.isdir(os.path.join(ORA, "node_modules")):
    subprocess.run(["npm", "ci", "--prefix", ORA, "--no-audit", "--no-fund"], check=True, capture_output=True)
M64 = (1 << 64) - 1


def mix64(z):
    z = (z + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def public_input(vanilla, partition):
    """y of the test circuit: FNV-1a over the payload, splitmix64 words, top word masked below r."""
    h = 0xCBF29CE484222325
    for b in vanilla:
        h = ((h ^ b) * 0x100000001B3) & M64
    s = mix64(h ^ (partition << 32) ^ 0)
    w = []
    for _ in range(4):
        s = mix64(s)
        w.append(s)
    w[3] &= 0x0FFFFFFFFFFFFFFF
    return sum(x << (64 * i) for i, x in enumerate(w))


def noble(proof, inputs):
    r = subprocess.run(["node", os.path.join(ORA, "daemon_verify.mjs"), os.path.join(PARAMS, "cuzk-test-porep-2k-test.params"),
                        proof.hex(), ";".join(",".join(str(x) for x in xs) for xs in inputs)],
                       capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout.strip().replace("\n", " | ")


CONFIG = """
[daemon]
listen = "unix://{sock}"
[srs]
param_cache = "{params}"
"""
d = Daemon(CONFIG, name="oracle")
S, _ = d.stub()
try:
    proofs = []
    for i in range(3):
        v = c1(f"oracle-{i}")
        r = S.Prove(pb.ProveRequest(submit=submit_req(f"oracle-{i}", vanilla=v)), timeout=120).result
        check(r.status == pb.AwaitProofResponse.COMPLETED, f"proof {i} COMPLETED")
        ins = [[public_input(v, p)] for p in range(2)]
        rc, out = noble(r.proof, ins)
        check(rc == 0, f"proof {i}: both partitions verify under @noble/curves ({out})")
        proofs.append((r.proof, ins))
    p0, in0 = proofs[0]
    rc, out = noble(p0, [[in0[0][0] + 1], in0[1]])
    check(rc == 1 and "partition 0: INVALID" in out and "partition 1: OK" in out, f"public input + 1 does not verify ({out})")
    rc, out = noble(proofs[1][0], in0)
    check(rc == 1 and "OK" not in out, f"another request's proof does not verify for these inputs ({out})")
    swapped = p0[192:] + p0[:192]
    rc, out = noble(swapped, in0)
    check(rc == 1, f"partitions in the wrong order do not verify ({out})")
finally:
    check(d.stop() == 0, "daemon exits 0")
finish()
