"""e2e: daemon.drain_timeout, a graceful stop (cuzk had none: spec bug #13). With N test-circuit Proves in flight
(~0.2 s a proof on 2 cores, so most are queued or running when the signal comes):
- drained: SIGTERM, then every in-flight Prove gets its proof (COMPLETED), a call made during the drain is refused
  (UNAVAILABLE), /status shutting_down and /metrics cuzk_shutting_down say so meanwhile, the daemon exits 0 after
  "drained in";
- the control, drain_timeout 0 (the default): the same SIGTERM cancels work in flight (some Proves CANCELLED);
- a second SIGTERM during the drain cancels the jobs left at once (some CANCELLED, exit 0, in seconds);
- the deadline: drain_timeout 1 s, the jobs left after it cancelled.
Every call gets an answer in every case. Usage: test_drain.py BUILD_DIR SOURCE_DIR (ctest passes them)."""
import json, signal, threading, time
from cuzk_e2e import BASE_CONFIG, Daemon, check, finish, pb, submit_req, grpc

C = pb.AwaitProofResponse
N = 40


def in_flight(d, tag):
    """N Prove calls on their own threads; returns (threads, results: i -> status or grpc code)."""
    S, _ = d.stub()
    res = {}

    def one(i):
        try:
            res[i] = S.Prove(pb.ProveRequest(submit=submit_req(f"{tag}-{i}")), timeout=120).result.status
        except grpc.RpcError as e:
            res[i] = e.code()
    ths = [threading.Thread(target=one, args=(i,)) for i in range(N)]
    [t.start() for t in ths]
    return ths, res


def accepted(d):
    """Until the daemon has taken all N jobs (10 s at most; one /status snapshot: finished + queued + running), so that
    the signal finds them accepted (a call still on its way when the server stops taking calls is refused, as any
    client's is then), and not all finished."""
    deadline = time.time() + 10
    while time.time() < deadline:
        js = json.loads(d.http("/status")[2])
        c = js["counters"]
        n = c["total_completed"] + c["total_failed"] + c["total_cancelled"] + c["queue_depth"] + len(js["pipelines"])
        if n >= N:
            return c["total_completed"] < N
        time.sleep(0.01)
    return False


def counts(res):
    return {k: sum(1 for v in res.values() if v == k) for k in set(res.values())}


def drain_config(t):
    return BASE_CONFIG.replace("[daemon]\n", f'[daemon]\ndrain_timeout = "{t}"\n')


# --- drained: every accepted job ends COMPLETED; a new call is refused
d = Daemon(drain_config("60s"), name="drain")
try:
    ths, res = in_flight(d, "dr")
    check(accepted(d), "drain: all jobs accepted, not all done, before the signal")
    before = json.loads(d.http("/status")[2])["shutting_down"]
    t0 = time.time()
    d.proc.send_signal(signal.SIGTERM)
    time.sleep(0.2)
    during = json.loads(d.http("/status")[2])["shutting_down"]
    metric = [ln for ln in d.http("/metrics")[2].splitlines() if ln.startswith("cuzk_shutting_down ")]
    check(before is False and during is True and metric == ["cuzk_shutting_down 1"],
          f"drain: /status shutting_down {before} before, {during} during; /metrics {metric}")
    S, _ = d.stub()
    try:
        S.Prove(pb.ProveRequest(submit=submit_req("after-term")), timeout=10)
        late = "accepted"
    except grpc.RpcError as e:
        late = e.code()
    rc = d.proc.wait(120)
    [t.join(10) for t in ths]
    log = d.logtext()
    c = counts(res)
    check(rc == 0 and "draining:" in log and "drained in" in log, f"drain: exit {rc} after {time.time() - t0:.1f} s, "
          "the log says draining and drained")
    check(c.get(C.COMPLETED, 0) == N, f"drain: all {N} in-flight Proves COMPLETED ({c})")
    check(late == grpc.StatusCode.UNAVAILABLE, f"drain: a Prove sent during the drain is refused ({late})")
finally:
    if d.proc.poll() is None:
        d.stop(signal.SIGKILL)

# --- the control: drain_timeout 0 cancels work in flight
d = Daemon(BASE_CONFIG, name="nodrain")
try:
    ths, res = in_flight(d, "nd")
    check(accepted(d), "no drain: all jobs accepted, not all done, before the signal")
    rc = d.stop(signal.SIGTERM, timeout=60)
    [t.join(10) for t in ths]
    c = counts(res)
    check(rc == 0 and "draining:" not in d.logtext(), "no drain: exit 0 without draining")
    check(len(res) == N and c.get(C.CANCELLED, 0) > 0 and set(c) <= {C.COMPLETED, C.CANCELLED},
          f"no drain: every call answered, some CANCELLED ({c})")
finally:
    if d.proc.poll() is None:
        d.stop(signal.SIGKILL)

# --- a second SIGTERM cuts the drain short
d = Daemon(drain_config("60s"), name="drain2")
try:
    ths, res = in_flight(d, "d2")
    check(accepted(d), "second signal: all jobs accepted, not all done, before the first")
    d.proc.send_signal(signal.SIGTERM)
    time.sleep(0.3)
    t0 = time.time()
    rc = d.stop(signal.SIGTERM, timeout=60)
    [t.join(10) for t in ths]
    c = counts(res)
    log = d.logtext()
    check(rc == 0 and "received SIGTERM again: cancelling" in log,
          f"second signal: exit {rc} {time.time() - t0:.1f} s after it, the log says cancelling")
    check(len(res) == N and c.get(C.CANCELLED, 0) > 0 and set(c) <= {C.COMPLETED, C.CANCELLED},
          f"second signal: every call answered, the jobs left CANCELLED ({c})")
finally:
    if d.proc.poll() is None:
        d.stop(signal.SIGKILL)

# --- the deadline
d = Daemon(drain_config("1s"), name="drain1")
try:
    ths, res = in_flight(d, "d1")
    check(accepted(d), "deadline: all jobs accepted, not all done, before the signal")
    t0 = time.time()
    rc = d.stop(signal.SIGTERM, timeout=60)
    took = time.time() - t0
    [t.join(10) for t in ths]
    c = counts(res)
    check(rc == 0 and "unfinished after 1 s: cancelling them" in d.logtext() and took >= 0.9,
          f"deadline: exit {rc} after {took:.1f} s, the log says what it cancelled")
    check(len(res) == N and c.get(C.CANCELLED, 0) > 0 and set(c) <= {C.COMPLETED, C.CANCELLED},
          f"deadline: every call answered, those unfinished after the second CANCELLED ({c})")
finally:
    if d.proc.poll() is None:
        d.stop(signal.SIGKILL)
finish()
