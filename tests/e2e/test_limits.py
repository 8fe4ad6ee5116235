"""e2e: the pending-work bound (RESOURCE_EXHAUSTED), CancelProof on queued and running jobs, and the
verify-before-COMPLETED rule (a daemon whose proofs are corrupted on purpose reports FAILED)."""
import json, time
from cuzk_e2e import BASE_CONFIG, Daemon, check, code_of, finish, pb, submit_req, prom_check, grpc

C = pb.AwaitProofResponse
# One prover worker, a one-slot prover queue and one synthesis worker, so a job's second partition
# waits behind its first and cancellation lands on a partition boundary deterministically.
CONFIG = BASE_CONFIG + """[gpus]
gpu_workers_per_device = 1
[scheduler]
max_pending = 3
[pipeline]
max_parallel_synthesis = 1
max_gpu_queue_depth = 1
"""
# The budget daemon: 160 MiB, 64 MiB charged per test-circuit partition in the prover (a partition being
# synthesized or queued holds only its 32 KiB witness) plus the loaded SRS (0.6 MiB) = at most 2 partitions
# proving, although 2 prover workers and a 4-deep prover queue could hold 6.
BUDGET = """
[daemon]
listen = "unix://{sock}"
status_listen = "127.0.0.1:{http}"
[srs]
param_cache = "{params}"
[memory]
total_budget = "160MiB"
[pipeline]
max_parallel_synthesis = 2
max_gpu_queue_depth = 4
"""
d = Daemon(CONFIG, name="limits")
S, _ = d.stub()
try:
    S.PreloadSRS(pb.PreloadSrsRequest(circuit_id="porep-2k-test"))
    a = S.SubmitProof(submit_req("job-a"))
    b = S.SubmitProof(submit_req("job-b"))
    c = S.SubmitProof(submit_req("job-c"))
    deadline = time.time() + 10  # the dispatcher thread may not have run yet on a loaded machine
    while True:
        q = {x.proof_kind: x for x in S.GetStatus(pb.GetStatusRequest()).queues}
        if "porep-c2" not in q or q["porep-c2"].in_progress >= 1 or time.time() > deadline:
            break
        time.sleep(0.002)
    check(q["porep-c2"].pending >= 1 and q["porep-c2"].in_progress >= 1,
          f"GetStatus: running and queued jobs (pending={q['porep-c2'].pending}, in_progress={q['porep-c2'].in_progress}; "
          f"queue positions {a.queue_position},{b.queue_position},{c.queue_position})")
    check(code_of(S.SubmitProof, submit_req("job-d")) == grpc.StatusCode.RESOURCE_EXHAUSTED,
          "4th job over scheduler.max_pending=3 -> RESOURCE_EXHAUSTED")
    cq = S.CancelProof(pb.CancelProofRequest(job_id="job-c"))
    rc = S.AwaitProof(pb.AwaitProofRequest(job_id="job-c", timeout_ms=10000))
    check(not cq.was_running and rc.status == C.CANCELLED, "CancelProof on a queued job: was_running=false, CANCELLED")
    # wait until job-b is running with a partition still to prove, then cancel it
    deadline = time.time() + 30
    while time.time() < deadline:
        st = json.loads(d.http("/status")[2])
        pl = {p["job_id"]: p for p in st["pipelines"]}
        if "job-b" in pl and pl["job-b"]["partitions_done"] == 0:
            break
        time.sleep(0.01)
    cb = S.CancelProof(pb.CancelProofRequest(job_id="job-b"))
    rb = S.AwaitProof(pb.AwaitProofRequest(job_id="job-b", timeout_ms=30000))
    check(cb.was_running and rb.status == C.CANCELLED and not rb.proof,
          f"CancelProof on a running job: was_running=true, CANCELLED at a partition boundary ({rb.error_message})")
    ra = S.AwaitProof(pb.AwaitProofRequest(job_id="job-a", timeout_ms=30000))
    check(ra.status == C.COMPLETED and len(ra.proof) == 384, "the job ahead still completes")
    check(S.CancelProof(pb.CancelProofRequest(job_id="job-a")).was_running is False, "CancelProof on a finished job: was_running=false")
    check(S.AwaitProof(pb.AwaitProofRequest(job_id="job-a")).status == C.COMPLETED, "cancel after completion keeps COMPLETED")
    r = S.Prove(pb.ProveRequest(submit=submit_req("job-e")), timeout=60).result
    check(r.status == C.COMPLETED, "room again after cancellations: Prove COMPLETED")
    r = S.Prove(pb.ProveRequest(submit=submit_req("job-c")), timeout=60).result
    check(r.status == C.COMPLETED, "a request_id whose job was cancelled can be retried")
    st = S.GetStatus(pb.GetStatusRequest())
    check(st.total_proofs_completed == 3 and st.total_proofs_failed == 0, "GetStatus counts 3 completed, 0 failed")
finally:
    rc = d.stop()
check(rc == 0, "limits daemon exits 0 on SIGTERM")

# A daemon that corrupts every proof before its check (CUZK_TEST_CORRUPT_PROOF=1, test-only switch).
d = Daemon(CONFIG, env={"CUZK_TEST_CORRUPT_PROOF": "1"}, name="corrupt")
S, _ = d.stub()
try:
    r = S.Prove(pb.ProveRequest(submit=submit_req("bad-proof")), timeout=60).result
    check(r.status == C.FAILED and not r.proof and "verify" in r.error_message,
          f"a proof that does not verify is FAILED, never COMPLETED ({r.error_message})")
    ok, detail, vals = prom_check(S.GetMetrics(pb.GetMetricsRequest()).prometheus_text)
    check(ok and vals["cuzk_proofs_failed_total"] == 1 and vals['cuzk_proofs_failed{proof_kind="porep_c2"}'] == 1,
          "metrics count the failure")
    r2 = S.Prove(pb.ProveRequest(submit=submit_req("bad-proof")), timeout=60).result
    check(r2.status == C.FAILED, "a failed request_id is retried (not deduplicated to the old failure)")
    check(S.GetStatus(pb.GetStatusRequest()).total_proofs_failed == 2, "the retry ran (2 failures)")
finally:
    check(d.stop() == 0, "corrupt daemon exits 0")

d = Daemon(BUDGET, name="budget")
S, _ = d.stub()
try:
    import threading
    ths = [threading.Thread(target=lambda i=i: S.Prove(pb.ProveRequest(submit=submit_req(f"mem-{i}")), timeout=120))
           for i in range(3)]
    [t.start() for t in ths]
    peak_parts = peak_used = 0
    total = 0
    while any(t.is_alive() for t in ths):
        st = json.loads(d.http("/status")[2])
        total = st["memory"]["total_bytes"]
        peak_used = max(peak_used, st["memory"]["used_bytes"])
        live = sum(1 for p in st["pipelines"] for q in p["partitions"] if q["state"] == "gpu")
        peak_parts = max(peak_parts, live)
        time.sleep(0.005)
    [t.join() for t in ths]
    check(total == 160 << 20 and 0 < peak_used <= total and peak_parts <= 2,
          f"memory budget gates partitions: peak {peak_parts} proving, peak used {peak_used >> 20} MiB of {total >> 20} MiB")
    check(S.GetStatus(pb.GetStatusRequest()).total_proofs_completed == 3, "all 3 complete under the budget")
finally:
    check(d.stop() == 0, "budget daemon exits 0")

# A budget smaller than the test circuit's SRS (~0.6 MiB): the SRS loads alone (a WARN says the budget is too
# small) and a proof still completes, with more in use than the budget: /status must not show a negative
# available_bytes (it once showed total - used as a signed number).
d = Daemon(BUDGET.replace('"160MiB"', '"256KiB"'), name="tiny")
S, _ = d.stub()
try:
    r = S.Prove(pb.ProveRequest(submit=submit_req("tiny-0")), timeout=120).result
    check(r.status == C.COMPLETED, f"a budget below the SRS's size: the proof completes ({r.error_message})")
    m = json.loads(d.http("/status")[2])["memory"]
    check(m["total_bytes"] == 256 << 10 and m["used_bytes"] > m["total_bytes"] and m["available_bytes"] == 0,
          f"/status memory with the SRS over the budget: available_bytes 0, not negative ({m})")
finally:
    check(d.stop() == 0, "tiny-budget daemon exits 0")
finish()
