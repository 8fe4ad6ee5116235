"""e2e: config files and CLI flags. Bad configs give one clear error naming the key and line and a non-zero
exit; unknown and deprecated keys only warn; cuzk.example.toml is accepted as it is; --check-config reports the same
errors, checks the listen addresses without binding them, the GPUs without opening them, and lists the official
parameter files it finds, each one's sections counted."""
import os, re, signal, subprocess, tempfile, time
from cuzk_e2e import BUILD, SRC, TMP, check, finish, tiny_params

CUZK = os.path.join(BUILD, "cuzk")


def run_cfg(text, extra=()):
    fd, path = tempfile.mkstemp(suffix=".toml", dir=TMP)
    os.write(fd, text.encode())
    os.close(fd)
    r = subprocess.run([CUZK, "--config", path, *extra], capture_output=True, text=True, timeout=30)
    return r.returncode, r.stderr, path


cases = [
    ("wrong type", '[gpus]\ngpu_workers_per_device = "two"\n', ["gpus.gpu_workers_per_device", ":2:", "integer"]),
    ("wrong type (bool)", '[daemon]\nlisten = "x"\n\n[pipeline]\nenabled = 1\n', ["pipeline.enabled", ":5:", "boolean"]),
    ("bad size", '[memory]\ntotal_budget = "lots"\n', ["memory.total_budget", ":2:", "lots"]),
    ("bad duration", '[memory]\neviction_min_idle = "5 weeks"\n', ["memory.eviction_min_idle", ":2:"]),
    ("syntax error", '[daemon\nlisten = "x"\n', [":1:"]),
    ("unterminated string", '[daemon]\nlisten = "unix:///x\n', [":2:", "unterminated"]),
    ("duplicate key", '[daemon]\nlisten = "a"\nlisten = "b"\n', [":3:", "listen", "twice"]),
    ("bad log level", '[logging]\nlevel = "loud"\n', ["logging.level", "loud"]),
    ("bad log filter", '[logging]\nlevel = "info,cuzk=loud"\n', ["logging.level", "loud"]),
    ("negative integer", '[scheduler]\nmax_pending = -1\n', ["scheduler.max_pending", ":2:", "range"]),
    ("devices not ints", '[gpus]\ndevices = ["0"]\n', ["gpus.devices", ":2:"]),
]
for what, text, needles in cases:
    rc, err, path = run_cfg(text)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    check(rc != 0 and len(lines) == 1 and all(n in err for n in needles),
          f"bad config ({what}) -> exit {rc}, one line: {lines[0] if lines else ''}")

rc = subprocess.run([CUZK, "--config", os.path.join(TMP, "missing.toml")], capture_output=True, text=True, timeout=30)
check(rc.returncode != 0 and "missing.toml" in rc.stderr, "an explicit config file that is missing -> error")
rc = subprocess.run([CUZK, "--log-level", "loud"], capture_output=True, text=True, timeout=30)
check(rc.returncode != 0 and "loud" in rc.stderr, "bad --log-level -> error")
rc = subprocess.run([CUZK, "--bogus"], capture_output=True, text=True, timeout=30)
check(rc.returncode == 2 and "--bogus" in rc.stderr, "unknown flag -> exit 2")
rc = subprocess.run([CUZK, "--listen", "dns:///x:1", "--config", "/dev/null"], capture_output=True, text=True, timeout=30)
check(rc.returncode != 0 and "dns:///x:1" in rc.stderr, "unsupported listen address -> error")

# --version: the project version of CMakeLists.txt and the commit the binary was built from, one that exists in the
# source tree's history when it has one (written at build time: a commit after the last configure is not missed)
PV = re.search(r"project\(cuzk VERSION ([0-9.]+)", open(os.path.join(SRC, "CMakeLists.txt")).read()).group(1)
for flag in ("--version", "-V"):
    r = subprocess.run([CUZK, flag], capture_output=True, text=True, timeout=30)
    m = re.fullmatch(r"cuzk (\S+) \(commit (\S+), (CUDA [0-9,]+|no GPU backend)\)\n", r.stdout)
    commit = m.group(2).removesuffix("-dirty") if m else ""
    known = subprocess.run(["git", "-C", SRC, "cat-file", "-e", commit + "^{commit}"], capture_output=True).returncode \
        == 0 if commit != "unknown" and os.path.isdir(os.path.join(SRC, ".git")) else True
    check(r.returncode == 0 and m is not None and m.group(1) == PV and known,
          f"cuzk {flag}: {r.stdout.strip()} (project {PV}, commit in the tree's history: {known})")
r = subprocess.run([CUZK, "--check-config", "-c", "/dev/null"], capture_output=True, text=True, timeout=30)
check(r.stdout.startswith(f"cuzk {PV} (commit "), "--check-config names the build first")

# --check-config: the same config errors (exit 1), the listen addresses checked without binding anything, the
# official parameter files srs.param_cache holds; nothing started (no socket, no directory made)
for what, text, needles in cases[:3]:
    rc, err, path = run_cfg(text, ["--check-config"])
    check(rc == 1 and all(n in err for n in needles), f"--check-config, bad config ({what}) -> exit {rc}")
pdir = tempfile.mkdtemp(dir=TMP)
P2K = ("v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
       "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params")
TINY = tiny_params()  # a whole file: the vk, A and IC one point each, the rest empty
with open(os.path.join(pdir, P2K), "wb") as f:
    f.write(TINY)
sockdir = os.path.join(pdir, "run", "deeper")
good = (f'[daemon]\nlisten = "unix://{sockdir}/cuzk.sock, 127.0.0.1:0"\nstatus_listen = "[::1]:0"\n'
        f'drain_timeout = "45s"\n[srs]\nparam_cache = "{pdir}"\n[memory]\ntotal_budget = "64GiB"\n')
fd, gpath = tempfile.mkstemp(suffix=".toml", dir=TMP)
os.write(fd, good.encode())
os.close(fd)
r = subprocess.run([CUZK, "--check-config", "-c", gpath], capture_output=True, text=True, timeout=30)
check(r.returncode == 0 and "config: OK" in r.stdout and "daemon.drain_timeout: 45 s" in r.stdout
      and "gpus.backend: auto\ngpus: " in r.stdout
      and "memory.total_budget: 64.0 GiB" in r.stdout
      and f"porep-2k     {P2K} (0.00 GB: H 0, L 0, A 1, B 0 points, 1 inputs)" in r.stdout
      and "official parameter files: 1 of" in r.stdout and not os.path.exists(sockdir),
      f"--check-config, a good config: exit {r.returncode}, the 2 KiB PoRep file listed with its sections, no socket "
      "directory made")
# GPUs the daemon would not get (none opened): gpus.devices naming ordinal 63 with gpus.backend = "gpu" is NOT OK on
# any host of fewer GPUs ("would not start": no device at all, or "lists GPU 63 but N CUDA device(s) exist")
with open(gpath, "a") as f:
    f.write('[gpus]\nbackend = "gpu"\ndevices = [63]\n')
r = subprocess.run([CUZK, "--check-config", "-c", gpath], capture_output=True, text=True, timeout=30)
check(r.returncode == 1 and "config: NOT OK" in r.stdout and "would not start" in r.stdout,
      f"--check-config, gpus.devices = [63] with gpus.backend = \"gpu\": exit {r.returncode}, "
      + "".join(x for x in r.stdout.splitlines(True) if x.startswith("gpus")).strip())
with open(gpath, "w") as f:
    f.write(good)
# srs.local_cache where nothing can be written (under a file): a warning, exit 0 (the daemon runs, it re-hashes)
r = subprocess.run([CUZK, "--check-config", "-c", gpath], capture_output=True, text=True, timeout=30)
check(f"srs.local_cache: {pdir}\n" in r.stdout, "--check-config: srs.local_cache defaults to srs.param_cache")
with open(gpath, "w") as f:
    f.write(good.replace("[srs]\n", f'[srs]\nlocal_cache = "{gpath}/sub"\n'))
r = subprocess.run([CUZK, "--check-config", "-c", gpath], capture_output=True, text=True, timeout=30)
check(r.returncode == 0 and "config: OK" in r.stdout and f"srs.local_cache: {gpath}/sub (not writable: Not a directory;"
      in r.stdout and "set srs.local_cache to a writable directory" in r.stdout,
      "--check-config, srs.local_cache not writable: a warning, exit 0")
with open(gpath, "w") as f:
    f.write(good)
# a parameter file that is not whole (its sections counted, a few pages read): NOT OK, exit 1, the fault named
for what, data, needles in [("cut short", TINY[:-2], ["section B_G2: truncated"]),
                            ("zeros", bytes(1000), ["vk.alpha_g1"]),
                            ("bytes after B_G2", TINY + b"x", ["1 bytes after its last section"])]:
    with open(os.path.join(pdir, P2K), "wb") as f:
        f.write(data)
    r = subprocess.run([CUZK, "--check-config", "-c", gpath], capture_output=True, text=True, timeout=30)
    check(r.returncode == 1 and "config: NOT OK" in r.stdout and f"{P2K} (0.00 GB): NOT OK" in r.stdout
          and "fetch it again" in r.stderr and all(n in r.stderr for n in needles),
          f"--check-config, a parameter file {what}: exit {r.returncode}, {r.stderr.strip()[:160]}")
for what, line, needle in [("listen", 'listen = "dns:///x:1"', "dns:///x:1"),
                           ("relative unix socket", 'listen = "unix://rel/cuzk.sock"', "must be absolute"),
                           ("status_listen", 'listen = "127.0.0.1:0"\nstatus_listen = "localhost:9821"', "localhost")]:
    rc, err, path = run_cfg(f"[daemon]\n{line}\n", ["--check-config"])
    check(rc == 1 and needle in err, f"--check-config, bad {what} -> exit {rc}: {err.strip()[:120]}")

# Unknown + deprecated keys warn; the daemon starts; --listen and --log-level override the file.
fd, path = tempfile.mkstemp(suffix=".toml", dir=TMP)
sock = os.path.join(TMP, "cfg.sock")
os.write(fd, f'[daemon]\nlisten = "127.0.0.1:1"\nfancy = 1\n[srs]\npreload = ["porep-32g"]\n[future]\nx = "y"\n'
         '[logging]\nlevel = "error"\n'.encode())
os.close(fd)
p = subprocess.Popen([CUZK, "-c", path, "-l", "unix://" + sock, "--log-level", "info"], stderr=subprocess.PIPE, text=True)
deadline = time.time() + 20
while not os.path.exists(sock) and time.time() < deadline and p.poll() is None:
    time.sleep(0.05)
p.terminate()
out = p.communicate(timeout=30)[1]
check(p.returncode == 0, "daemon with unknown/deprecated keys starts and exits 0 on SIGTERM")
check("unknown key 'daemon.fancy'" in out and "unknown key 'future.x'" in out and "srs.preload' is deprecated" in out,
      "unknown and deprecated keys are named in warnings with their lines")
check("gRPC listening on unix://" + sock in out, "--listen overrides daemon.listen; --log-level overrides logging.level")

# logging.level and RUST_LOG as cuzk takes them (env_logger filters; RUST_LOG wins): a config migrated from cuzk
# with a filter no longer stops the daemon.
fd, path = tempfile.mkstemp(suffix=".toml", dir=TMP)
os.write(fd, b'[logging]\nlevel = "info,cuzk_core=error"\n')  # cuzk's item wins over the bare level: error
os.close(fd)


def start_stop(env, sig=signal.SIGTERM):
    q = subprocess.Popen([CUZK, "-c", path, "-l", "unix://" + sock], stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, **env))
    t_end = time.time() + 20
    while not os.path.exists(sock) and time.time() < t_end and q.poll() is None:
        time.sleep(0.05)
    q.send_signal(sig)
    return q.wait(timeout=30), q.communicate(timeout=30)[1]


for env, want_info, what in (({}, False, "logging.level filter 'info,cuzk_core=error': cuzk's item, error"),
                             ({"RUST_LOG": "info"}, True, "RUST_LOG=info wins over logging.level"),
                             ({"RUST_LOG": "h2=trace,cuzk=info"}, True, "RUST_LOG filter: cuzk's item"),
                             ({"RUST_LOG": "loud"}, False, "RUST_LOG with no level: warned, ignored")):
    rc, out = start_stop(env)
    ok = rc == 0 and ("gRPC listening" in out) == want_info
    if env.get("RUST_LOG") == "loud":
        ok = ok and "RUST_LOG ignored" in out and "loud" in out
    check(ok, f"{what} (exit {rc}): {out.strip()[:200]}")

# SIGINT (Ctrl-C; cuzk kept running after it, spec bug #13) stops the daemon as SIGTERM does: exit 0, clean exit.
rc, out = start_stop({"RUST_LOG": "info"}, signal.SIGINT)
check(rc == 0 and "clean exit" in out, f"SIGINT: exit {rc}, clean exit")

# The shipped example config, as it is, with the listen address overridden.
ex = os.path.join(SRC, "cuzk.example.toml")
p = subprocess.Popen([CUZK, "-c", ex, "-l", "unix://" + sock], stderr=subprocess.PIPE, text=True)
deadline = time.time() + 20
while not os.path.exists(sock) and time.time() < deadline and p.poll() is None:
    time.sleep(0.05)
# SIGUSR1 wakes the main thread only for the engine's all-lost hook (gpus.exit_when_all_lost): one from
# outside is ignored
p.send_signal(signal.SIGUSR1)
time.sleep(0.5)
alive = p.poll() is None
p.terminate()
out = p.communicate(timeout=30)[1]
check(p.returncode == 0 and "WARN" not in out, "cuzk.example.toml is accepted as it is (no warnings)")
check(alive and "clean exit" in out and "every GPU is lost" not in out,
      "a SIGUSR1 from outside is ignored (the daemon goes on, then exits 0 on SIGTERM)")

# logging.format = "json": every log line is one JSON object (TIMELINE lines stay CSV for their parsers).
import json  # noqa: E402
fd, path = tempfile.mkstemp(suffix=".toml", dir=TMP)
os.write(fd, b'[logging]\nformat = "json"\nunknown_here = 1\n')
os.close(fd)
p = subprocess.Popen([CUZK, "-c", path, "-l", "unix://" + sock], stderr=subprocess.PIPE, text=True)
deadline = time.time() + 20
while not os.path.exists(sock) and time.time() < deadline and p.poll() is None:
    time.sleep(0.05)
p.terminate()
out = p.communicate(timeout=30)[1]
objs = []
for ln in out.splitlines():
    try:
        objs.append(json.loads(ln))
    except ValueError:
        objs.append(None)
check(p.returncode == 0 and objs and all(o and {"timestamp", "level", "target", "message"} <= o.keys() for o in objs)
      and any("unknown key 'logging.unknown_here'" in o["message"] for o in objs), f"logging.format=json: {len(objs)} JSON lines")
finish()
