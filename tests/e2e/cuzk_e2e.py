"""Shared e2e helpers: gRPC stubs generated at test time from proto/cuzk/v1/proving.proto (Debian's
python3-grpc-tools), a daemon started from a config file, a small check counter, Prometheus text checks."""
import base64, json, os, re, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.request

BUILD, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
TMP = tempfile.mkdtemp(prefix="cuzk-e2e-")
_stubs = os.path.join(TMP, "stubs")
os.makedirs(_stubs)
from grpc_tools import protoc  # noqa: E402

if protoc.main(["protoc", "-I" + os.path.join(SRC, "proto"), "--python_out=" + _stubs, "--grpc_python_out=" + _stubs,
                "cuzk/v1/proving.proto"]) != 0:
    sys.exit("protoc failed")
sys.path.insert(0, _stubs)
import grpc  # noqa: E402
from cuzk.v1 import proving_pb2 as pb, proving_pb2_grpc as pbg  # noqa: E402,F401

PARAMS = os.path.join(BUILD, "e2e-params")  # shared across tests so the seeded setup runs once
SRS_CACHE = os.path.join(BUILD, "srs-cache")  # the real 2 KiB seeded setup (minutes), shared with scripts/demo.sh
MiB = 1 << 20
R_FR = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001  # BLS12-381 scalar field order
# A daemon on the unix socket with /status on a free port and the shared parameter folder (suites add sections)
BASE_CONFIG = """
[daemon]
listen = "unix://{sock}"
status_listen = "127.0.0.1:{http}"
[srs]
param_cache = "{params}"
"""
# The real circuits with no official parameter file here: a seeded local setup cached in build/srs-cache
SEEDED_CONFIG = """
[daemon]
listen = "unix://{sock}"
[srs]
param_cache = "{params}/official"
local_cache = "{srs_cache}"
"""
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
        print("ok   ", what, flush=True)
    else:
        failed += 1
        print("FAIL ", what, flush=True)


def finish():
    print(f"{passed} passed, {failed} failed", flush=True)
    shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(1 if failed else 0)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def c1(seed, sector_size=2048):
    """A C1 wrapper JSON whose Phase1Out is distinct per seed (the test circuit derives its witness from it)."""
    p1 = json.dumps({"registered_proof": "StackedDrg2KiBV1_1", "seed": list(os.urandom(32)), "tag": str(seed)})
    return json.dumps({"SectorNum": 1, "Phase1Out": base64.b64encode(p1.encode()).decode(),
                       "SectorSize": sector_size}).encode()


def submit_req(rid, vanilla=None, kind=1, sector_size=2048, priority=0):
    return pb.SubmitProofRequest(request_id=rid, proof_kind=kind, sector_size=sector_size, priority=priority,
                                 vanilla_proof=c1(rid) if vanilla is None else vanilla, sector_number=1, miner_id=1000)


def listening(path):
    """Whether a server accepts connections on the unix socket at path."""
    if not os.path.exists(path):
        return False
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        return True
    except OSError:
        return False
    finally:
        s.close()


class Daemon:
    """A daemon on config_text ({sock} {port} {http} {params} {srs_cache} are filled in). test_circuit: 2 KiB
    PoRep uses the fast built-in test circuit ([testing] builtin_test_circuit), as most suites need."""

    def __init__(self, config_text, env=None, name="d", test_circuit=True):
        self.dir = tempfile.mkdtemp(prefix=name + "-", dir=TMP)
        self.sock = os.path.join(self.dir, "cuzk.sock")
        self.cfg = os.path.join(self.dir, "cuzk.toml")
        e = dict(os.environ)
        e.update(env or {})
        # free_port's ports are free when it returns, not when the daemon binds them: an e2e suite running beside
        # (ctest -j) can take one first, and the daemon then stops with "cannot listen on": start again on others.
        for attempt in range(3):
            self.port = free_port()
            self.http_port = free_port()
            with open(self.cfg, "w") as f:
                f.write(config_text.format(sock=self.sock, port=self.port, http=self.http_port, params=PARAMS,
                                           srs_cache=SRS_CACHE))
                if test_circuit:
                    f.write("\n[testing]\nbuiltin_test_circuit = true\n")
            self.log = open(os.path.join(self.dir, "daemon.log"), "w+")
            self.proc = subprocess.Popen([os.path.join(BUILD, "cuzk"), "--config", self.cfg], stdout=self.log,
                                         stderr=subprocess.STDOUT, env=e)
            # The socket file appears when gRPC binds it, before the server listens (grpc_server_start): until then
            # a call is refused (seen once on a loaded CI machine), so wait until a connection is accepted.
            deadline = time.time() + 20
            while not listening(self.sock) and time.time() < deadline and self.proc.poll() is None:
                time.sleep(0.05)
            if listening(self.sock) or self.proc.poll() is None or "cannot listen on" not in self.logtext():
                break
            print(f"daemon start {attempt + 1}: a port was taken meanwhile, again on others")
            self.log.close()
            if os.path.exists(self.sock):
                os.unlink(self.sock)
        if not listening(self.sock):
            print(self.logtext())
            raise SystemExit("daemon did not start")
        self.unix = "unix://" + self.sock
        self.tcp = f"127.0.0.1:{self.port}"

    def stub(self, target=None):
        opts = [("grpc.max_send_message_length", 300 * MiB), ("grpc.max_receive_message_length", 300 * MiB)]
        ch = grpc.insecure_channel(target or self.unix, options=opts)
        return pbg.ProvingEngineStub(ch), ch

    def http(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}{path}", timeout=10) as r:
            return r.status, r.headers.get("Content-Type"), r.read().decode()

    def logtext(self):
        self.log.flush()
        with open(self.log.name) as f:
            return f.read()

    def stop(self, sig=signal.SIGTERM, timeout=30):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return None


def code_of(fn, *a, **kw):
    try:
        fn(*a, **kw)
        return grpc.StatusCode.OK
    except grpc.RpcError as e:
        return e.code()


_line = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"'
                   r'(,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*")*)?\})? (-?[0-9.eE+-]+|NaN|[+-]Inf)( -?[0-9]+)?$')


def prom_check(text):
    """promtool when Debian's prometheus is installed, else a strict parser of text format 0.0.4.
    Returns (ok, detail, {name or name{labels}: value})."""
    values = {}
    types = {}
    for ln in text.splitlines():
        if not ln:
            continue
        if ln.startswith("# TYPE "):
            _, _, n, t = ln.split(" ", 3)
            if n in types or t not in ("counter", "gauge", "summary", "histogram", "untyped"):
                return False, "bad TYPE line: " + ln, values
            types[n] = t
            continue
        if ln.startswith("#"):
            continue
        m = _line.match(ln)
        if not m:
            return False, "bad sample line: " + ln, values
        key = ln.rsplit(" ", 1)[0]
        if key in values:
            return False, "duplicate sample: " + key, values
        values[key] = float(m.group(5))
        base = m.group(1)
        if not any(base == n or (types.get(n) == "summary" and base in (n + "_sum", n + "_count")) for n in types):
            return False, "sample without TYPE: " + ln, values
    if shutil.which("promtool"):
        r = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
        # promtool exits 0 on success; lint warnings (exit 3 for lint-only in some versions) are not errors
        bad = r.returncode not in (0, 3) or "error" in (r.stdout + r.stderr).lower()
        if bad:
            return False, "promtool: " + r.stdout + r.stderr, values
        return True, "promtool ok", values
    return True, "strict parser ok (no promtool)", values


# The G1 generator uncompressed (x ‖ y, 48-byte big-endian each; the BLS12-381 spec's) and the points at infinity
G1_GEN = bytes.fromhex("17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac58"
                       "6c55e83ff97a1aeffb3af00adb22c6bb"
                       "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3ed"
                       "d03cc744a2888ae40caa232946c5e7e1")
G1_INF, G2_INF = b"\x40" + bytes(95), b"\x40" + bytes(191)


def tiny_params(l_bytes=b""):
    """The smallest file of the .params layout (bellperson: vk = six points, IC; then H, L, A, B_G1, B_G2 with u32
    big-endian counts, uncompressed points): the six vk points at infinity (bellperson allows it there), IC and A one
    point each (the G1 generator), H, B_G1 and B_G2 empty, L the given bytes as len/96 "points" (random bytes: a file
    whose sections count right but whose points do not decode)."""
    u32 = lambda n: n.to_bytes(4, "big")
    return (G1_INF + G1_INF + G2_INF + G2_INF + G1_INF + G2_INF + u32(1) + G1_GEN + u32(0) + u32(len(l_bytes) // 96)
            + l_bytes + u32(1) + G1_GEN + u32(0) + u32(0))


def gen_c1(sector_size=2048, sector_number=1):
    """A fresh synthetic C1 wrapper from cuzk-bench gen-vanilla porep (bytes)."""
    path = os.path.join(TMP, f"c1-{time.time_ns()}.json")
    subprocess.run([os.path.join(BUILD, "cuzk-bench"), "gen-vanilla", "porep", "--sector-size", str(sector_size),
                    "--sector-number", str(sector_number), "-o", path], check=True, capture_output=True)
    with open(path, "rb") as f:
        return f.read()


def noble_verify(params, proof, inputs):
    """(exit code, output) of tests/oracles/daemon_verify.mjs: the proof checked under @noble/curves with the vk read
    from the parameter file and the public inputs (integers); npm ci on first use."""
    ora = os.path.join(SRC, "tests", "oracles")
    if not os.path.isdir(os.path.join(ora, "node_modules")):
        subprocess.run(["npm", "ci", "--prefix", ora, "--no-audit", "--no-fund"], check=True, capture_output=True)
    r = subprocess.run(["node", os.path.join(ora, "daemon_verify.mjs"), params, proof.hex(),
                        ",".join(str(x) for x in inputs)], capture_output=True, text=True, timeout=600)
    return r.returncode, r.stdout.strip()


def c1_unwrap(wrapper):
    """(wrapper dict, Phase1Out dict) of a Commit2In wrapper."""
    w = json.loads(wrapper)
    return w, json.loads(base64.b64decode(w["Phase1Out"]))


def c1_wrap(w, inner):
    w = dict(w)
    w["Phase1Out"] = base64.b64encode(json.dumps(inner, separators=(",", ":")).encode()).decode()
    return json.dumps(w).encode()
