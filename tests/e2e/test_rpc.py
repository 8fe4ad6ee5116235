"""e2e: every cuzk.v1 RPC over the unix socket and TCP, concurrency, dedup, malformed requests, /status,
/metrics, SIGTERM. Usage: test_rpc.py BUILD_DIR SOURCE_DIR (ctest passes them)."""
import json, os, signal, threading, time, urllib.error
from cuzk_e2e import *  # noqa: F401,F403
from cuzk_e2e import Daemon, check, code_of, finish, pb, submit_req, prom_check, c1, grpc

# The 50 concurrent Proves (CUZK_E2E_CONCURRENT overrides; ~9 s here with the merged MSM).
N_CONCURRENT = int(os.environ.get("CUZK_E2E_CONCURRENT", "50"))
CONFIG = """
[daemon]
listen = "unix://{sock},127.0.0.1:{port}"
status_listen = "127.0.0.1:{http}"
[srs]
param_cache = "{params}"
[gpus]
gpu_workers_per_device = 2
[scheduler]
max_pending = 200
[logging]
level = "info"
"""
d = Daemon(CONFIG, name="rpc")
S, _ = d.stub(d.unix)
ST, _ = d.stub(d.tcp)
OK, IA, NF, UN, RE, AE = (grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND,
                          grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.RESOURCE_EXHAUSTED,
                          grpc.StatusCode.ALREADY_EXISTS)
C = pb.AwaitProofResponse


def metrics():
    ok, detail, vals = prom_check(S.GetMetrics(pb.GetMetricsRequest()).prometheus_text)
    return vals


try:
    # --- status on both transports
    for name, st in (("unix", S), ("tcp", ST)):
        r = st.GetStatus(pb.GetStatusRequest(), timeout=5)
        check(len(r.gpus) == 0 and r.total_proofs_completed == 0, f"GetStatus over {name}: no GPUs (CPU backend), 0 done")
        m = metrics()
        budget = m.get("cuzk_memory_budget_bytes")
        check(m.get("cuzk_prover_host_bytes") == 0 and m.get("cuzk_witness_staging_bytes") == 0,
              f"metrics over {name}: no provers' host memory, no staging buffers (CPU backend)")
        check(r.pinned_memory_bytes == 0 and budget and r.pinned_memory_limit_bytes == int(budget),
              f"GetStatus over {name}: no page-locked memory (CPU backend), the memory budget as its limit "
              f"({r.pinned_memory_bytes} / {r.pinned_memory_limit_bytes}, budget {budget})")

    # --- SRS preload / evict
    r = S.PreloadSRS(pb.PreloadSrsRequest(circuit_id="porep-2k-test"))
    r2 = S.PreloadSRS(pb.PreloadSrsRequest(circuit_id="porep-2k-test"))
    check(r2.already_loaded and r2.load_time_ms == 0, f"PreloadSRS loads once (first {r.load_time_ms} ms), then already_loaded")
    st = S.GetStatus(pb.GetStatusRequest())
    srs = [x for x in st.loaded_srs if x.circuit_id == "porep-2k-test"]
    check(len(srs) == 1 and srs[0].tier == pb.SRSStatus.HOT and srs[0].size_bytes > 0 and srs[0].ref_count == 0,
          "GetStatus lists the loaded SRS as HOT with its size and 0 refs")
    check(code_of(S.PreloadSRS, pb.PreloadSrsRequest(circuit_id="no-such-circuit")) == NF, "PreloadSRS unknown id -> NOT_FOUND")
    check(code_of(S.PreloadSRS, pb.PreloadSrsRequest(circuit_id="porep-32g")) == grpc.StatusCode.FAILED_PRECONDITION,
          "PreloadSRS porep-32g without its .params file -> FAILED_PRECONDITION")
    check(code_of(S.PreloadSRS, pb.PreloadSrsRequest(circuit_id="snap-32g")) == grpc.StatusCode.FAILED_PRECONDITION,
          "PreloadSRS snap-32g without its .params file -> FAILED_PRECONDITION")
    check(code_of(S.PreloadSRS, pb.PreloadSrsRequest(circuit_id="wpost-32g")) == grpc.StatusCode.FAILED_PRECONDITION,
          "PreloadSRS wpost-32g without its .params file -> FAILED_PRECONDITION")
    e1 = S.EvictSRS(pb.EvictSrsRequest(circuit_id="porep-2k-test"))
    e2 = S.EvictSRS(pb.EvictSrsRequest(circuit_id="porep-2k-test"))
    check(e1.was_loaded and e1.freed_bytes == srs[0].size_bytes and not e2.was_loaded and e2.freed_bytes == 0,
          "EvictSRS frees an unreferenced SRS once (freed_bytes = size), then was_loaded=false")
    check(not [x for x in S.GetStatus(pb.GetStatusRequest()).loaded_srs if x.tier == pb.SRSStatus.HOT],
          "GetStatus: nothing HOT after evict")
    check(code_of(S.EvictSRS, pb.EvictSrsRequest(circuit_id="nope")) == NF, "EvictSRS unknown id -> NOT_FOUND")

    # --- Prove over both transports (reloads the evicted SRS)
    for name, st in (("unix", S), ("tcp", ST)):
        t = time.time()
        r = st.Prove(pb.ProveRequest(submit=submit_req("prove-" + name)), timeout=120).result
        check(r.status == C.COMPLETED and len(r.proof) == 384 and r.job_id == "prove-" + name and not r.error_message,
              f"Prove over {name}: COMPLETED, 2 x 192 B ({time.time() - t:.2f} s, total_ms={r.total_ms}, "
              f"srs_load_ms={r.srs_load_ms}, synth={r.synthesis_ms}, prove={r.gpu_compute_ms})")
        # compressed points: the top bit of A (byte 0), B (byte 48) and C (byte 144) is the compression flag
        check(all(r.proof[o] & 0x80 for o in (0, 48, 144, 192, 240, 336)), f"proof over {name} holds compressed points")
    r1 = S.Prove(pb.ProveRequest(submit=submit_req("same-a", vanilla=c1("fixed")))).result
    r2 = S.Prove(pb.ProveRequest(submit=submit_req("same-b", vanilla=c1("fixed")))).result
    check(r1.status == r2.status == C.COMPLETED and r1.proof != r2.proof, "two proofs of one statement differ (fresh r, s)")

    # --- Submit + Await, with and without timeout
    sub = S.SubmitProof(submit_req(""))
    check(len(sub.job_id) == 36 and sub.job_id.count("-") == 4, "SubmitProof with empty request_id gets a uuid job_id")
    a = S.AwaitProof(pb.AwaitProofRequest(job_id=sub.job_id, timeout_ms=1))
    check(a.status == C.TIMEOUT and a.job_id == sub.job_id, "AwaitProof timeout_ms=1 -> TIMEOUT while running")
    a = S.AwaitProof(pb.AwaitProofRequest(job_id=sub.job_id))
    check(a.status == C.COMPLETED and len(a.proof) == 384, "AwaitProof without timeout -> COMPLETED")
    a2 = ST.AwaitProof(pb.AwaitProofRequest(job_id=sub.job_id, timeout_ms=5000))
    check(a2.status == C.COMPLETED and a2.proof == a.proof, "AwaitProof again (TCP) returns the stored result")

    # --- request_id dedup
    before = metrics().get("cuzk_proofs_completed_total", 0)
    v = c1("dedup")
    s1 = S.SubmitProof(submit_req("dup-1", vanilla=v))
    s2 = ST.SubmitProof(submit_req("dup-1", vanilla=v))
    check(s1.job_id == s2.job_id == "dup-1", "repeated request_id returns the existing job")
    check(code_of(S.SubmitProof, submit_req("dup-1", vanilla=c1("other"))) == AE,
          "request_id reused with a different payload while live -> ALREADY_EXISTS")
    r = S.Prove(pb.ProveRequest(submit=submit_req("dup-1", vanilla=v))).result
    check(r.status == C.COMPLETED, "Prove with the same request_id joins the existing job")
    check(metrics()["cuzk_proofs_completed_total"] - before == 1, "dedup proved once (completed_total +1)")
    # after COMPLETED, another payload under the id is a new job (a WindowPoSt retried with another skip set)
    r2 = S.Prove(pb.ProveRequest(submit=submit_req("dup-1", vanilla=c1("other")))).result
    a = S.AwaitProof(pb.AwaitProofRequest(job_id="dup-1"))
    check(r2.status == C.COMPLETED and r2.proof != r.proof and a.proof == r2.proof
          and metrics()["cuzk_proofs_completed_total"] - before == 2,
          "request_id reused with another payload after COMPLETED: a new job, the id's result is its proof")

    # --- concurrency: N Prove calls over both transports
    before = metrics()["cuzk_proofs_completed_total"]
    results = {}

    def one(i):
        st = S if i % 2 else ST
        try:
            results[i] = st.Prove(pb.ProveRequest(submit=submit_req(f"conc-{i}")), timeout=300).result
        except grpc.RpcError as e:
            results[i] = e

    t = time.time()
    ths = [threading.Thread(target=one, args=(i,)) for i in range(N_CONCURRENT)]
    [x.start() for x in ths]
    time.sleep(0.5)
    code, ctype, body = d.http("/status")
    js = json.loads(body)
    check(code == 200 and ctype == "application/json" and "pipelines" in js and "counters" in js
          and "gpu_workers" in js and js["counters"]["queue_depth"] >= 0,
          "HTTP /status under load is the JSON snapshot")
    ver = subprocess.run([os.path.join(BUILD, "cuzk"), "--version"], capture_output=True, text=True).stdout
    bld = js.get("build", {})
    want = f"cuzk {bld.get('version')} (commit {bld.get('commit')}, " + (
        f"CUDA {bld['cuda_arch']})\n" if bld.get("cuda_arch") else "no GPU backend)\n")
    check(ver == want, f"/status build {bld} is what --version says: {ver.strip()}")
    st = S.GetStatus(pb.GetStatusRequest())
    q = {x.proof_kind: x for x in st.queues}
    check("porep-c2" in q and q["porep-c2"].pending + q["porep-c2"].in_progress > 0,
          f"GetStatus queues under load: porep-c2 pending={q.get('porep-c2') and q['porep-c2'].pending} "
          f"in_progress={q.get('porep-c2') and q['porep-c2'].in_progress}")
    # cuzk's /status buffers, polled while the jobs run: the prover queue or start, the witnesses held and the
    # finalizers each seen above 0 (synth_in_flight is synthesis.active: the test circuit's take under a millisecond),
    # every one back to 0 after the jobs
    BUF = ("synth_in_flight", "provers_in_flight", "aux_in_flight", "shells_in_flight", "pending_handles")
    peak = dict.fromkeys(BUF, 0)
    polls = 0
    while any(x.is_alive() for x in ths):
        b = json.loads(d.http("/status")[2]).get("buffers", {})
        for k in BUF:
            peak[k] = max(peak[k], b.get(k, -1))
        polls += 1
        time.sleep(0.01)
    [x.join() for x in ths]
    wall = time.time() - t
    good = [i for i, r in results.items() if not isinstance(r, Exception) and r.status == C.COMPLETED
            and len(r.proof) == 384 and r.job_id == f"conc-{i}"]
    check(len(good) == N_CONCURRENT, f"{N_CONCURRENT} concurrent Proves all COMPLETED with their own job ids "
          f"({len(good)} ok, {wall:.1f} s, {wall / N_CONCURRENT:.2f} s/proof)")
    check(len({results[i].proof for i in good}) == len(good), "no two concurrent jobs returned the same proof")
    # the test circuit synthesizes compact witnesses (as PoRep does): /status counts them, and holds none
    # once every partition has gone through the prover
    js = json.loads(d.http("/status")[2])
    w = js.get("witness", {})
    syn = w.get("synthesized", {})
    check(w.get("compact") is True and syn.get("compact", {}).get("partitions", 0) >= N_CONCURRENT
          and syn.get("compact", {}).get("bytes", 0) > 0 and w.get("held_bytes") == 0
          and all(p.get("witness") in ("compact", "dense") for p in js["pipelines"]),
          f"/status witness: compact partitions counted, nothing held after the jobs ({w})")
    check(metrics()["cuzk_proofs_completed_total"] - before == N_CONCURRENT, "completed_total grew by exactly N")
    b = js.get("buffers", {})
    check(peak["synth_in_flight"] >= 0 and peak["provers_in_flight"] > 0 and peak["aux_in_flight"] > 0
          and peak["pending_handles"] > 0 and peak["shells_in_flight"] == 0
          and all(b.get(k) == 0 for k in BUF) and b.get("gpu_queue") == 0,
          f"/status buffers: each seen in flight over {polls} polls ({peak}), all 0 after the jobs ({b})")

    # --- malformed requests
    bad = [
        ("proof_kind 7 (unknown enum)", dict(kind=7), IA),
        ("proof_kind 0", dict(kind=0), IA),
        ("empty vanilla_proof", dict(vanilla=b""), IA),
        ("garbage vanilla_proof", dict(vanilla=os.urandom(300)), IA),
        ("wrapper with bad base64", dict(vanilla=b'{"SectorNum":1,"Phase1Out":"!!!","SectorSize":2048}'), IA),
        ("C1 SectorSize != sector_size", dict(vanilla=c1("x", 4096)), IA),
        ("sector_size 12345", dict(sector_size=12345, vanilla=c1("x", 12345)), IA),
        ("sector_size 32 GiB (no .params file)", dict(sector_size=32 << 30, vanilla=c1("x", 32 << 30)),
         grpc.StatusCode.FAILED_PRECONDITION),
        ("WINNING_POST 32 GiB (no .params file)", dict(kind=4, sector_size=32 << 30), grpc.StatusCode.FAILED_PRECONDITION),
        ("SNAP_DEALS 32 GiB (no .params file)", dict(kind=2, sector_size=32 << 30), grpc.StatusCode.FAILED_PRECONDITION),
    ]
    def rejected():
        m = metrics()
        return {(k, r): m.get(f'cuzk_requests_rejected_total{{proof_kind="{k}",reason="{r}"}}', 0)
                for k in ("unknown", "porep_c2", "snap_update", "winning_post") for r in ("invalid", "no_params")}
    rej0 = rejected()
    for what, kw, want in bad:
        rid = kw.pop("rid", "bad")
        got = code_of(S.SubmitProof, submit_req(rid, **kw))
        # Prove answers a request it cannot prove with an OK RPC carrying FAILED, as cuzk does (cuzk-spec 1); only
        # an unknown proof_kind stays INVALID_ARGUMENT there
        try:
            res = ST.Prove(pb.ProveRequest(submit=submit_req(rid, **kw))).result
            got2 = "FAILED" if res.status == pb.AwaitProofResponse.FAILED and res.error_message else res.status
        except grpc.RpcError as e:
            got2 = e.code()
        want2 = want if "proof_kind" in what else "FAILED"
        check(got == want and got2 == want2, f"{what} -> Submit {want.name} ({got.name}), Prove {want2} ({got2})")
    # each refused twice (Submit, Prove): counted by kind and reason, not as failed proofs
    rej = {k: v - rej0[k] for k, v in rejected().items()}
    want = {("unknown", "invalid"): 4, ("porep_c2", "invalid"): 10, ("porep_c2", "no_params"): 2,
            ("winning_post", "no_params"): 2, ("snap_update", "no_params"): 2}
    check(all(rej[k] == want.get(k, 0) for k in rej) and metrics()["cuzk_proofs_failed_total"] == 0,
          f"cuzk_requests_rejected_total by kind and reason: {rej}")
    check(code_of(S.Prove, pb.ProveRequest()) == IA, "Prove without submit -> INVALID_ARGUMENT")
    check(code_of(S.AwaitProof, pb.AwaitProofRequest(job_id="no-such-job")) == NF, "AwaitProof unknown id -> NOT_FOUND")
    check(code_of(S.CancelProof, pb.CancelProofRequest(job_id="no-such-job")) == NF, "CancelProof unknown id -> NOT_FOUND")
    _, ch = d.stub(d.unix)
    raw = ch.unary_unary("/cuzk.v1.ProvingEngine/SubmitProof", request_serializer=None, response_deserializer=None)
    check(code_of(raw, b"\xff\xff\xff\xff\x0f") == IA, "undecodable protobuf bytes -> INVALID_ARGUMENT")
    nomethod = ch.unary_unary("/cuzk.v1.ProvingEngine/Nope", request_serializer=None, response_deserializer=None)
    check(code_of(nomethod, b"") == UN, "unknown method -> UNIMPLEMENTED")
    big = pb.SubmitProofRequest(request_id="big", proof_kind=1, sector_size=2048, vanilla_proof=b"x" * (257 * MiB))
    check(code_of(S.SubmitProof, big) == RE, "257 MiB message -> RESOURCE_EXHAUSTED")
    del big
    r = S.Prove(pb.ProveRequest(submit=submit_req("after-bad")), timeout=60).result
    check(r.status == C.COMPLETED, "daemon keeps serving after malformed requests")
    # no sector_size: the size registered_proof names (0: 2 KiB V1), the C1 wrapper's SectorSize not compared to 0
    r = S.Prove(pb.ProveRequest(submit=submit_req("no-size", sector_size=0)), timeout=60).result
    check(r.status == C.COMPLETED and len(r.proof) == 384, f"PoRep without sector_size: COMPLETED {r.error_message}")

    # --- metrics over gRPC and HTTP
    text = S.GetMetrics(pb.GetMetricsRequest()).prometheus_text
    ok, detail, vals = prom_check(text)
    check(ok, "GetMetrics parses as Prometheus text: " + detail)
    names = ["cuzk_proofs_completed_total", "cuzk_proofs_failed_total", "cuzk_uptime_seconds", "cuzk_queue_depth",
             'cuzk_proofs_completed{proof_kind="porep_c2"}', 'cuzk_proofs_failed{proof_kind="porep_c2"}',
             'cuzk_proof_duration_seconds_count{proof_kind="porep_c2"}', "cuzk_running_jobs", "cuzk_gpu_workers"]
    check(all(n in vals for n in names), "cuzk's metric names are present")
    code, ctype, body = d.http("/metrics")
    ok, detail, _ = prom_check(body)
    check(code == 200 and ctype.startswith("text/plain") and ok, "HTTP /metrics parses: " + detail)
    try:
        d.http("/nope")
        check(False, "HTTP unknown path -> 404")
    except urllib.error.HTTPError as e:
        check(e.code == 404, "HTTP unknown path -> 404")
    # cuzk-spec 2.3: GET /status answers with Access-Control-Allow-Origin: * and Connection: close, and anything
    # else gets 404 text (a POST or HEAD too, not 405)
    import http.client
    got = []
    for method, path in (("GET", "/status"), ("POST", "/status"), ("PUT", "/metrics"), ("DELETE", "/nope")):
        hc = http.client.HTTPConnection("127.0.0.1", d.http_port, timeout=10)
        hc.request(method, path, body=b"x" if method in ("POST", "PUT") else None)
        r = hc.getresponse()
        got.append((method, path, r.status, r.getheader("Connection"), r.getheader("Access-Control-Allow-Origin")))
        r.read()
        hc.close()
    check(got[0][2:] == (200, "close", "*") and all(g[2] == 404 and g[3] == "close" for g in got[1:]),
          f"HTTP: GET /status 200 with Connection: close and CORS, any other method 404 ({got})")
    log = d.logtext()
    check("TIMELINE" in log and ",SYNTH_START,prove-unix,partition=0" in log and ",GPU_END,prove-unix,worker=" in log,
          "TIMELINE lines with cuzk's events and job ids")
    check("built-in TEST circuit" in log, "logs say the built-in test circuit is in use")

    # --- SIGTERM with work in flight: answers the waiting call, exits 0
    box = {}
    th = threading.Thread(target=lambda: box.setdefault("r", code_of(S.Prove, pb.ProveRequest(submit=submit_req("last")))))
    th.start()
    time.sleep(0.3)
    t = time.time()
    rc = d.stop(signal.SIGTERM)
    th.join(30)
    check(rc == 0 and "clean exit" in d.logtext(), f"SIGTERM: clean exit 0 in {time.time() - t:.2f} s")
    check(not th.is_alive(), f"the in-flight Prove call got an answer ({box.get('r')})")
finally:
    if d.proc.poll() is None:
        d.stop()
finish()
