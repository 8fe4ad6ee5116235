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


def scenario(config, name, what, act):
    """A daemon on config, N Proves in flight and accepted, then act(d) (the signals; its exit status); returns the
    calls' answers counted and the daemon's log. Every call must get an answer."""
    d = Daemon(config, name=name)
    try:
        ths, res = in_flight(d, name)
        check(accepted(d), f"{what}: all jobs accepted, not all done, before the signal")
        t0 = time.time()
        rc = act(d)
        [t.join(10) for t in ths]
        c = counts(res)
        check(rc == 0 and len(res) == N and set(c) <= {C.COMPLETED, C.CANCELLED},
              f"{what}: exit {rc} {time.time() - t0:.1f} s after the signal, every call answered ({c})")
        return c, d.logtext()
    finally:
        if d.proc.poll() is None:
            d.stop(signal.SIGKILL)


def drained(d):
    """SIGTERM with a drain: /status and /metrics say so, a new call is refused, the daemon exits on its own."""
    before = json.loads(d.http("/status")[2])["shutting_down"]
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
    check(late == grpc.StatusCode.UNAVAILABLE, f"drain: a Prove sent during the drain is refused ({late})")
    return d.proc.wait(120)


def twice(d):
    d.proc.send_signal(signal.SIGTERM)
    time.sleep(0.3)
    return d.stop(signal.SIGTERM, timeout=60)


def deadline(d):
    t0 = time.time()
    rc = d.stop(signal.SIGTERM, timeout=60)
    check(time.time() - t0 >= 0.9, f"deadline: the daemon waited the drain's second ({time.time() - t0:.1f} s)")
    return rc


c, log = scenario(drain_config("60s"), "drain", "drain", drained)
check("draining:" in log and "drained in" in log and c.get(C.COMPLETED, 0) == N,
      f"drain: the log says draining and drained; all {N} in-flight Proves COMPLETED ({c})")
c, log = scenario(BASE_CONFIG, "nodrain", "no drain", lambda d: d.stop(signal.SIGTERM, timeout=60))
check("draining:" not in log and c.get(C.CANCELLED, 0) > 0, f"no drain: no drain, some Proves CANCELLED ({c})")
c, log = scenario(drain_config("60s"), "drain2", "second signal", twice)
check("received SIGTERM again: cancelling" in log and c.get(C.CANCELLED, 0) > 0,
      f"second signal: the log says cancelling, the jobs left CANCELLED ({c})")
c, log = scenario(drain_config("1s"), "drain1", "deadline", deadline)
check("unfinished after 1 s: cancelling them" in log and c.get(C.CANCELLED, 0) > 0,
      f"deadline: the log says what it cancelled, those unfinished after the second CANCELLED ({c})")
finish()
