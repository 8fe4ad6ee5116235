"""e2e (slow): a daemon that proves for months must not grow. 8,000 proofs of the built-in test circuit through
cuzk-bench batch (4 in flight) in rounds of 1,000, each round after 50 truncated C1s (refused at submit); the daemon
keeps the last 4,096 finished jobs (10 minutes at most) for AwaitProof and dedup, so its resident memory grows until
then (~4.5 kB a job) and must stay flat after: the last three rounds, all past 5,000, may add at most 2 MB (a leak of
a kilobyte a proof would add 3), and threads, file descriptors and /status buffers end where they were. Measured on
the build machine (2 cores): 39.6 MB after 1,000 proofs, 55.2 MB at 5,000, 55.7 MB at 7,000, 56.7 MB at 14,000, ~11
proofs a second. Usage: slow_soak.py BUILD_DIR SOURCE_DIR (CUZK_SOAK_ROUNDS changes the round count, at least 8)."""
import json, os, re, subprocess
from cuzk_e2e import BASE_CONFIG, BUILD, TMP, Daemon, check, finish

CONFIG = BASE_CONFIG
ROUNDS = max(8, int(os.environ.get("CUZK_SOAK_ROUNDS", "8")))
B = os.path.join(BUILD, "cuzk-bench")
d = Daemon(CONFIG, name="soak")


def proc(field):
    with open(f"/proc/{d.proc.pid}/status") as f:
        return int(re.search(rf"^{field}:\s+(\d+)", f.read(), re.M).group(1))


def counts():
    return len(os.listdir(f"/proc/{d.proc.pid}/task")), len(os.listdir(f"/proc/{d.proc.pid}/fd"))


try:
    c1 = os.path.join(TMP, "soak-c1.json")
    check(subprocess.run([B, "gen-vanilla", "porep", "-o", c1], capture_output=True).returncode == 0,
          "gen-vanilla porep writes a C1")
    bad = os.path.join(TMP, "soak-bad.json")  # a C1 cut short: refused at submit (INVALID_ARGUMENT), no job made
    with open(c1, "rb") as f, open(bad, "wb") as g:
        g.write(f.read()[:-50])
    rss, done, refused = [], 0, 0
    for r in range(ROUNDS):
        for _ in range(50):
            refused += subprocess.run([B, "-a", d.unix, "single", "-t", "porep", "--c1", bad], capture_output=True,
                                      timeout=60).returncode != 0
        out = subprocess.run([B, "-a", d.unix, "batch", "--c1", c1, "-c", "1000", "-j", "4"], capture_output=True,
                             text=True, timeout=1200).stdout
        m = re.search(r"completed: (\d+), failed: (\d+)", out)
        done += int(m.group(1)) if m and m.group(2) == "0" else 0
        rss.append(proc("VmRSS"))
        if r == 0:
            base = counts()
        print(f"round {r + 1}: {done} proofs, VmRSS {rss[-1]} kB, threads/fds {counts()}", flush=True)
    check(done == 1000 * ROUNDS, f"{done} of {1000 * ROUNDS} proofs COMPLETED")
    check(refused == 50 * ROUNDS, f"{refused} of {50 * ROUNDS} truncated C1s refused")
    grow = rss[-1] - rss[-4]
    check(grow <= 2 * 1024, f"resident memory flat once 4,096 jobs are kept: +{grow} kB over the last 3,000 proofs "
          f"({rss[0]} kB after 1,000, {rss[-1]} kB after {done})")
    check(counts() == base, f"threads and file descriptors as after the first round: {counts()} (then {base})")
    js = json.loads(d.http("/status")[2])
    check(all(v == 0 for v in js["buffers"].values()) and js["counters"]["queue_depth"] == 0,
          f"nothing in flight at the end: {js['buffers']}")
finally:
    check(d.stop() == 0, "daemon exits 0 on SIGTERM")
finish()
