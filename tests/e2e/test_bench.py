"""e2e: cuzk-bench against the daemon (single, batch, status, preload, evict, metrics, cancel, gen-vanilla),
over TCP and the unix socket. The PoSt and Snap inputs: gen-vanilla window-post / winning-post write synthetic
sector proofs as a JSON array of base64 entries and print the `single` command with the randomness; real 2 KiB
Window (2 sectors) and Winning PoSt proofs complete through it (a seeded setup of seconds); gen-vanilla
snap-prove's file and commitments are accepted at submit (a wrong comm_r_new is INVALID_ARGUMENT naming the
partition, with sector_size unset as Curio's proof-share requests send it too; the 2 KiB Snap proof itself, a setup
of ~30 s on 2 cores, is in slow_bench_snap.py); at 512 MiB an empty update passes the vanilla check and synthesis. An 8 MiB Window
PoSt has no official parameters here: FAILED_PRECONDITION naming the file, and under [testing] seeded_setup_any
(seeded_setup_cache = false) a seeded setup, nothing written, and a real proof COMPLETED."""
import base64, json, os, re, subprocess
from cuzk_e2e import BUILD, PARAMS, TMP, Daemon, check, finish, prom_check, c1_unwrap, pb, grpc

CONFIG = """
[daemon]
listen = "unix://{sock},127.0.0.1:{port}"
[srs]
param_cache = "{params}"
"""
B = os.path.join(BUILD, "cuzk-bench")
d = Daemon(CONFIG, name="bench")


def bench(*args):
    r = subprocess.run([B, *args], capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout, r.stderr


try:
    U, T = ["-a", d.unix], ["-a", "http://" + d.tcp]
    rc, out, _ = bench(*U, "preload", "-c", "porep-2k-test")
    check(rc == 0 and ("loaded in" in out or "already loaded" in out), "preload: " + out.strip())
    # --wait on the CPU backend: nothing is built ahead, it says so and returns at once
    rc, out, _ = bench(*U, "preload", "-c", "porep-2k-test", "--wait")
    check(rc == 0 and "already loaded" in out and "no GPU prover to build" in out, "preload --wait: " + out.strip())
    # --log-level: this process's own log, as the daemon takes it (a level or a filter); an unknown one refused
    rc, out, err = bench(*U, "--log-level", "info,cuzk_core=debug", "status")
    rc2, _, err2 = bench(*U, "--log-level", "loud", "status")
    check(rc == 0 and rc2 == 1 and "unknown log level 'loud'" in err2,
          f"--log-level: a filter taken, 'loud' refused ({err2.strip()})")
    rc, out, err = bench(*U, "preload", "--circuit-id", "nope")
    check(rc == 1 and "status 5" in err, "preload of an unknown id fails with NOT_FOUND (5)")
    rc, out, _ = bench(*T, "single", "-t", "porep")
    check(rc == 0 and "=== Proof Result ===" in out and "status: COMPLETED" in out and "proof: 384 bytes" in out
          and re.search(r"timings: total=\d+ ms \(queue=\d+ ms, srs=\d+ ms, synth=\d+ ms, gpu=\d+ ms\)", out),
          "single -t porep over TCP (synthetic 2 KiB C1): COMPLETED, 384 bytes")
    c1 = os.path.join(TMP, "c1.json")
    rc, out, _ = bench("gen-vanilla", "porep", "-o", c1)
    check(rc == 0 and os.path.getsize(c1) > 0, "gen-vanilla porep writes a C1 wrapper")
    w, inner = c1_unwrap(open(c1, "rb").read())
    parts = inner["vanilla_proofs"]["StackedDrg2KiBV1"]
    check(w["SectorSize"] == 2048 and inner["registered_proof"] == "StackedDrg2KiBV1_1" and len(parts) == 1
          and len(parts[0]) == 2 and len(parts[0][0]["labeling_proofs"]) == 2,
          "the wrapper holds a 2 KiB SealCommitPhase1Output: 1 partition x 2 challenges, 2 layers")
    tool = os.path.join(BUILD, "tests", "cz_tool_c1_inputs")
    for size, name in ((2048, "2 KiB"), (8 << 20, "8 MiB")):
        path = os.path.join(TMP, f"c1-{size}.json")
        rc, out, _ = bench("gen-vanilla", "porep", "--sector-size", str(size), "-o", path)
        r = subprocess.run([tool, path], capture_output=True, text=True, timeout=120)
        check(rc == 0 and r.returncode == 0 and "partition 0: vanilla proofs verify" in r.stdout,
              f"gen-vanilla {name}: cz_tool_c1_inputs verifies its vanilla proofs")
    rc, out, _ = bench(*U, "batch", "--c1", c1, "-c", "3", "-j", "2")
    check(rc == 0 and out.count("COMPLETED —") == 3 and "completed: 3, failed: 0" in out
          and re.search(r"throughput: [\d.]+ proofs/min \([\d.]+s/proof\)", out), "batch -c 3 -j 2 over unix: 3 COMPLETED")
    # where the batch's pipeline waited, from the daemon's counters around it (the CPU backend: no GPU lines); this
    # daemon proves 2 KiB PoRep with its built-in test circuit, two partitions a proof
    m = re.search(r"^partitions \(porep_c2\): (\d+) synthesized, avg \d+ ms; avg wait for the prover \d+ ms$", out, re.M)
    check(m is not None and m.group(1) == "6" and "gpu " not in out,
          "batch's pipeline line: 6 partitions synthesized, their wait for the prover " + (m.group(0) if m else out[-300:]))
    # --c1 from a pipe (bash's <(...)): read as a stream (the reader once sized its buffer from ftell's -1 and wrote
    # the file past a 1-byte block); a directory and a file over the daemon's 256 MiB message limit are refused by
    # name, nothing sent
    r = subprocess.run(["bash", "-c", f'"{B}" -a "{d.unix}" single -t porep --c1 <(cat "{c1}")'], capture_output=True,
                       text=True, timeout=120)
    check(r.returncode == 0 and "status: COMPLETED" in r.stdout,
          "single --c1 <(cat c1.json): COMPLETED " + r.stderr[:200])
    rc, out, err = bench(*U, "single", "-t", "porep", "--c1", TMP)
    check(rc == 1 and "--c1: " in err and "is a directory" in err, "single --c1 DIR: refused by name: " + err.strip())
    huge = os.path.join(TMP, "huge.json")
    with open(huge, "wb") as f:
        f.truncate((256 << 20) + 1)  # sparse: one byte over the limit
    rc, out, err = bench(*U, "single", "-t", "porep", "--c1", huge)
    check(rc == 1 and "larger than 268435456 bytes" in err, "single --c1 of 256 MiB + 1 byte: refused: " + err.strip())
    os.remove(huge)
    rc, out, _ = bench(*U, "single", "-t", "winning", "--vanilla", c1)
    check(rc == 1, "single -t winning fails (no circuit yet) with a non-zero exit")
    rc, out, _ = bench(*U, "status")
    check(rc == 0 and "proofs: 5 completed, 0 failed" in out and "porep-2k-test" in out and "hot" in out, "status shows counts and SRS")
    rc, out, _ = bench(*U, "metrics")
    check(rc == 0 and prom_check(out)[0] and "cuzk_proofs_completed_total 5" in out, "metrics prints Prometheus text")
    ver = subprocess.run([B, "--version"], capture_output=True, text=True).stdout.split()[1]  # cuzk-bench X (commit ..)
    check(re.search(r'^cuzk_build_info\{version="%s",commit="[0-9a-z-]+",cuda_arch="[0-9a-z,]*"\} 1$' % re.escape(ver),
                    out, re.M) is not None, f"metrics: cuzk_build_info names version {ver}, the commit and CUDA arch")
    rc, out, _ = bench(*U, "cancel", "--job-id", "nope")
    check(rc == 1, "cancel of an unknown job fails")
    rc, out, _ = bench(*U, "evict", "-c", "porep-2k-test")
    check(rc == 0 and "evicted" in out, "evict: " + out.strip())

    # synth-only: the daemon's synthesis in this process; the aux counts are filecoin-circuits.md's (2 KiB PoRep
    # 2,685,673; 2-sector 2 KiB Window PoSt 22,128)
    rc, out, err = bench("synth-only", "--c1", c1, "-i", "2")
    check(rc == 0 and len(re.findall(r"^\[\d\] wall=\d+ ms synth=\d+ ms circuits=1 circuit=porep-2k inputs=40 "
                                     r"aux=2685673 witness=compact", out, re.M)) == 2 and "average over 2" in out,
          "synth-only --c1 -i 2: two porep-2k syntheses, 2,685,673 aux " + err.strip()[:160])
    rc, out, err = bench("synth-only", "--c1", c1, "--dense")
    check(rc == 0 and "aux=2685673 witness=dense 85.9 MB" in out, "synth-only --dense: 32 bytes a value")
    # the witness mix, counted from the bitmaps (compact) and from the values (dense): the same, mostly bits
    mixes = [re.findall(r"aux 0/1/other=([\d.]+)/([\d.]+)/([\d.]+) %", o) for o in (out, bench("synth-only", "--c1", c1)[1])]
    check(all(len(m) == 1 for m in mixes) and mixes[0] == mixes[1] and float(mixes[0][0][2]) < 5
          and abs(sum(map(float, mixes[0][0])) - 100) < 0.2, f"synth-only: porep-2k aux mix {mixes}, dense = compact")
    rc, out, err = bench("synth-only", "--c1", c1, "--partition", "1")
    check(rc == 1 and "porep-2k has 1 partition(s)" in err, "synth-only --partition 1 of a 1-partition C1 fails")
    # a C1 is one miner's sector (its replica_id): gen-vanilla binds it to --sector-number / --miner-id and names
    # them in the wrapper, which --c1 then takes; another sector or miner is refused at prepare (synth-only runs
    # the daemon's prepare in this process)
    c77 = os.path.join(TMP, "c1-77.json")
    rc, out, _ = bench("gen-vanilla", "porep", "--sector-number", "77", "--miner-id", "4242", "-o", c77)
    w77, _ = c1_unwrap(open(c77, "rb").read())
    check(rc == 0 and w77["SectorNum"] == 77 and w77["Miner"] == "f04242"
          and f"submit: cuzk-bench single -t porep --c1 {c77} --sector-num 77 --miner-id 4242" in out,
          "gen-vanilla porep --sector-number 77 --miner-id 4242: the wrapper and the submit line name them")
    rc, out, err = bench("synth-only", "--c1", c77)
    check(rc == 0 and "circuit=porep-2k" in out, "synth-only --c1 (sector and miner from the wrapper) " + err[:160])
    # Curio's PSProve sends the raw C1 (no wrapper) as Go marshals its Commit1OutRaw: keys in the struct's order,
    # sector and miner in the request only
    _, inner77 = c1_unwrap(open(c77, "rb").read())
    raw77 = os.path.join(TMP, "c1-77-go.json")
    with open(raw77, "w") as f:
        json.dump({k: inner77[k] for k in ("comm_d", "comm_r", "registered_proof", "replica_id", "seed", "ticket",
                                           "vanilla_proofs")}, f, separators=(",", ":"))
    rc, out, err = bench("synth-only", "--c1", raw77, "--sector-num", "77", "--miner-id", "4242")
    check(rc == 0 and "circuit=porep-2k" in out, "synth-only of the raw C1 in Go's key order (PSProve) " + err[:160])
    for flags, who in ((["--sector-num", "78"], "f04242 sector 78"), (["--miner-id", "4243"], "f04243 sector 77")):
        rc, out, err = bench("synth-only", "--c1", c77, *flags)
        check(rc == 1 and f"not that of miner {who}" in err and "replica_id" in err,
              f"synth-only --c1 {' '.join(flags)}: refused, {err.strip()[:200]}")

    # PoSt through gen-vanilla's files and printed commands
    def submit_line(out):
        m = re.search(r"^submit: cuzk-bench (.*)$", out, re.M)
        return m.group(1).split() if m else []
    for sub, kind, n in (("window-post", "wpost", "2"), ("winning-post", "winning", "1")):
        path = os.path.join(TMP, f"{kind}.json")
        rc, out, err = bench("gen-vanilla", sub, "-c", n, "--partition", "1", "-o", path)
        entries = json.load(open(path)) if rc == 0 else []
        cmd = submit_line(out)
        check(rc == 0 and len(entries) == int(n) and all(len(base64.b64decode(e)) > 100 for e in entries)
              and "--randomness" in cmd, f"gen-vanilla {sub}: {n} base64 sector proof(s) and the submit line: {err}")
        rc, out, err = bench(*U, *cmd)
        check(rc == 0 and "status: COMPLETED" in out and "proof: 192 bytes" in out,
              f"single -t {kind} with gen-vanilla's line: a real 2 KiB proof COMPLETED {err.strip()[:200]}")
        if kind == "wpost":
            rc, out, err = bench("synth-only", *cmd[1:])
            m = re.search(r"aux 0/1/other=[\d.]+/[\d.]+/([\d.]+) %", out)
            check(rc == 0 and "circuit=wpost-2k inputs=23 aux=22128" in out and m and float(m.group(1)) > 90,
                  "synth-only with the same flags: the wpost-2k witness, 22,128 aux, > 90 % neither 0 nor 1 "
                  + err.strip()[:160])
        if kind == "wpost":  # the randomness is part of the statement: another one does not verify
            i = cmd.index("--randomness") + 1
            other = cmd[:i] + [("%02x" % (int(cmd[i][:2], 16) ^ 1)) + cmd[i][2:]] + cmd[i + 1:]
            rc, out, err = bench(*U, *other)
            # Prove answers it as cuzk does: an OK RPC whose result is FAILED, with the message
            check(rc == 1 and "status: FAILED" in out and "does not verify" in out,
                  "wpost with another randomness: FAILED, does not verify: " + out.strip()[-160:])
    # without --randomness a PoSt request carries 32 zero bytes (cuzk's default): a proof made for them proves
    zero = os.path.join(TMP, "wpost-zero.json")
    rc, out, err = bench("gen-vanilla", "window-post", "--randomness", "00" * 32, "-o", zero)
    rc2, out, err = bench(*U, "single", "-t", "wpost", "--sector-size", "2048", "--vanilla", zero)
    check(rc == 0 and rc2 == 0 and "status: COMPLETED" in out,
          "single -t wpost without --randomness: 32 zero bytes, COMPLETED " + err.strip()[:160])
    rc, out, err = bench(*U, "single", "-t", "wpost", "--sector-size", "2048", "--vanilla", path, "--randomness", "00")
    check(rc == 1 and "64 hex digits" in err, "a short --randomness is refused before any request: " + err.strip())
    bad = os.path.join(TMP, "bad-vanilla.json")
    open(bad, "w").write('["AAAA", 7]')
    rc, out, err = bench(*U, "single", "-t", "wpost", "--sector-size", "2048", "--vanilla", bad)
    check(rc == 1 and "entry 1 is not a base64 string" in err, "a JSON array entry that is not base64: " + err.strip())

    # Snap: the file and the three commitments reach the daemon's vanilla verifier
    snap = os.path.join(TMP, "snap.json")
    rc, out, err = bench("gen-vanilla", "snap-prove", "-o", snap)
    cmd = submit_line(out)
    check(rc == 0 and len(json.load(open(snap))) == 1 and "--comm-r-new" in cmd,
          "gen-vanilla snap-prove: 1 partition proof and the commitments " + err.strip())
    i = cmd.index("--comm-r-new") + 1
    wrong = cmd[:i] + ["%064x" % (int(cmd[i], 16) ^ 1)] + cmd[i + 1:]
    rc, out, err = bench(*U, *wrong)
    check(rc == 1 and "status: FAILED" in out and "vanilla_proofs[0] (partition 0) does not verify" in out,
          "snap with a wrong --comm-r-new: FAILED naming the partition: " + out.strip()[-160:])
    # Curio's proof-share Snap requests leave sector_size unset (cuzk-spec §1): the size comes from registered_proof.
    # The wrong comm_r_new makes the request stop at the vanilla check, so it reached the snap-2k circuit.
    S, ch = d.stub()
    arg = lambda k: bytes.fromhex(cmd[cmd.index(k) + 1])
    ps = dict(request_id="ps-snap-1000-1-7", proof_kind=2, registered_proof=0,
              vanilla_proofs=[base64.b64decode(e) for e in json.load(open(snap))], sector_number=1, miner_id=1000,
              comm_r_old=arg("--comm-r-old"), comm_r_new=bytes.fromhex(wrong[i]), comm_d_new=arg("--comm-d-new"))
    for rp, want in ((0, "vanilla_proofs[0] (partition 0) does not verify"), (5, "names no snap-update sector size")):
        try:
            S.SubmitProof(pb.SubmitProofRequest(**dict(ps, registered_proof=rp)), timeout=60)
            code, msg = "OK", ""
        except grpc.RpcError as e:
            code, msg = e.code().name, e.details()
        check(code == "INVALID_ARGUMENT" and want in msg,
              f"snap without sector_size, registered_proof {rp}: INVALID_ARGUMENT, {want} ({code}: {msg[:140]})")
    ch.close()
    # Above 8 MiB an empty update (new data all zeros, the old replica periodic): 16 partition proofs whose comm_d_new
    # is a 512 MiB CC sector's (the value supraseal's Rust demo hard-codes), comm_r_new = comm_r_old, and the daemon's
    # parse, vanilla check and synthesis (synth-only, in process) take the last partition; a wrong comm_d_new not
    rc, out, err = bench("gen-vanilla", "snap-prove", "--sector-size", str(512 << 20), "-o", snap)
    cmd = submit_line(out)
    arg = lambda k: cmd[cmd.index(k) + 1] if k in cmd else ""
    check(rc == 0 and "new data all zeros" in out and len(json.load(open(snap))) == 16
          and arg("--comm-d-new") == "39560e7b13a93b07a243fd2720ffa7cb3e1d2e505ab3629e79f46313512cda06"
          and arg("--comm-r-old") == arg("--comm-r-new") != "",
          "gen-vanilla snap-prove at 512 MiB: an empty update of 16 partitions, the CC comm_d " + err.strip())
    so = ["synth-only"] + cmd[1:] + ["--partition", "15"]
    rc, out, err = bench(*so)
    check(rc == 0 and "circuit=snap-512m" in out and "witness=" in out,
          "synth-only of its partition 15: checked and synthesized " + (out + err).strip()[:200])
    i = so.index("--comm-d-new") + 1
    so[i] = "%064x" % (int(so[i], 16) ^ 1)
    rc, out, err = bench(*so)
    check(rc == 1 and "does not verify" in err, "synth-only with a wrong --comm-d-new: " + err.strip()[:160])

    # 8 MiB Window PoSt: no official file, then a seeded setup under [testing] seeded_setup_any
    w8 = os.path.join(TMP, "wpost-8m.json")
    rc, out, err = bench("gen-vanilla", "window-post", "--sector-size", str(8 << 20), "-c", "2", "-o", w8)
    cmd8 = submit_line(out)
    rc2, out2, err2 = bench(*U, *cmd8)
    check(rc == 0 and rc2 == 1 and "status: FAILED" in out2 and "v28-proof-of-spacetime" in out2,
          "8 MiB Window PoSt without its parameters: FAILED naming the file " + out2.strip()[-160:])
    d8 = Daemon(CONFIG + "[testing]\nseeded_setup_any = true\nseeded_setup_cache = false\n", name="bench8m",
                test_circuit=False)
    try:
        rc, out, err = bench("-a", d8.unix, *cmd8)
        log = d8.logtext()
        check(rc == 0 and "status: COMPLETED" in out and "proof: 192 bytes" in out
              and "seeded setup of wpost-8m done" in log and "wrote seeded parameters" not in log
              and "seeded_setup_any is on" in log
              and not any(f.endswith("wpost-8m.params") for f in os.listdir(PARAMS)),
              "8 MiB Window PoSt under seeded_setup_any: a seeded setup, not written, proof COMPLETED "
              + err.strip()[:160])
    finally:
        check(d8.stop() == 0, "the seeded_setup_any daemon exits 0")
finally:
    check(d.stop() == 0, "daemon exits 0")
finish()
