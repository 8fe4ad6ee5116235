#!/usr/bin/env bash
# The daemon on the GPU end to end: cuzk with gpus.backend = "gpu" proves real 2 KiB PoRep C2s (fresh
# synthetic C1s from `cuzk-bench gen-vanilla porep`) submitted over gRPC by cuzk-bench, one alone and then a
# batch with two in flight (two workers per GPU share the device lock), then one proof of each other kind in
# KINDS (default "wpost winning snap": a 2-sector Window PoSt, a Winning PoSt and a SnapDeals update, 2 KiB,
# their inputs from `cuzk-bench gen-vanilla window-post | winning-post | snap-prove`, submitted with the
# command it prints); the daemon verifies every proof before it answers COMPLETED. For the device machine, which has no gRPC/protobuf-c/jansson/microhttpd:
# pack the binaries and their shared libraries here with
#   bash scripts/gpu-daemon-check.sh --pack BUILD_DIR OUT_DIR     (a CUDA + server build, e.g. -DCZ_CUDA_ARCH=90)
# then carry OUT_DIR and run `bash scripts/gpu-daemon-check.sh OUT_DIR` there. Exit 0 only when every proof
# completed on the GPU backend; it counts the partitions each GPU started. env: COUNT (batch size,
# 4), JOBS (proofs in flight, 2; on a machine of G GPUs use >= 2 G so every device gets work), ALL_DEVICES=1
# (fail when a device proved nothing), BACKEND (gpu; cpu for a dry run on a machine without one), BREAK_GPU=ORDINAL
# (a lost GPU: the daemon breaks that GPU's CUDA context before its first partition, CUZK_TEST_BREAK_GPU; the
# check then also needs the device taken out of service, the partition requeued and every proof completed on
# the others: run it on a machine of two GPUs or more; with LOSE_ALL=1 on one GPU, the proof must fail with "no usable
# GPU", the next request be refused, and status and metrics still answer; with LOSE_ALL=1 EXIT_WHEN_LOST=1 the
# daemon runs with gpus.exit_when_all_lost = true and must exit by itself with status 75 after that proof fails).
# SIZE (PoRep sector size in bytes, 2048): another size proves a synthetic C1 of that size against a seeded
# setup ([testing] seeded_setup_any: the official parameters are not on the device machine; the setup's
# fixed-base products run on the GPU), uncached above 512 MiB (SEEDED_CACHE=false: a 32 GiB file is 47 GB);
# KINDS then defaults to none and COUNT to 0 (no batch). SIZE=34359738368 is a whole 32 GiB PoRep C2 (10
# partitions of the real 130 M-constraint circuit; ~110 GiB of GPU and ~100 GB of host memory). KSIZE (the KINDS'
# sector size, 2048; another one also runs against a seeded setup, e.g. KINDS=wpost KSIZE=34359738368: a 32 GiB
# Window PoSt partition, 2 sectors padded to 2,349) and POREP=0 (no PoRep C2 first, and no batch). WORKERS: gpus.gpu_workers_per_device (2).
# LAGRANGE=1: gpus.h_lagrange = true with a bases cache in DIR/lagrange-cache (see below); LAGRANGE_CACHED=1 also
# requires every prover to have loaded its bases from that cache (a second run on the same DIR).
# Pair sums (gpus.pair_sums, on by default): the check counts the provers that took them (their creation log names
# the queries) and fails when provers were built and none took them; CZ_GPU_PROVER_PAIRS=0 (the environment the daemon inherits) turns them off.
# RELEASE=1: srs.release_resident_bases = true, and the check wants the log's "SRS bases released" (and, with MAXRES=1
# (gpus.max_resident_circuits), KINDS and AGAIN=1 (one more PoRep after the KINDS), "SRS bases restored": the KINDS
# evicted the PoRep's prover, whose bases the last PoRep decodes again to build it).
# MIX_DELAY=S: S seconds more before the KINDS. QUIT_AFTER_KINDS=1 (with MIX=1): the daemon gets a SIGTERM once the KINDS are done, the PoRep left unfinished (a Lagrange
# build without its cache, 8.3 minutes at 32 GiB, does not fit one device call); it must exit within 60 s (the
# shutdown stops the build under way) and the time it took is printed.
# PRE_KINDS: kinds proved before the PoRep (same sector size KSIZE), e.g. PRE_KINDS=winning MIX=1 KINDS=winning LAGRANGE=1.
# PRELOAD=ID (a circuit id, e.g. porep-2k, porep-32g): `cuzk-bench preload -c ID --wait` before the PoRep (it returns
# once every GPU's prover for it is built in the background; the log must then say "prover ready" for each);
# with the PoRep of that circuit (not MIX), the check then fails when the PoRep's first proof built a prover.
# MIX_AT=load (with MIX=1): the KINDS go in MIX_DELAY seconds after the PoRep's SRS load began (TIMELINE SRS_LOAD), and
# must be done before it ends (a 32 GiB seeded setup, ~70 s: the dispatcher once loaded inline and held them up;
# CUZK_SRS_LOAD_INLINE=1 in the daemon's environment does so again, for a before / after).
# MIX=1: the KINDS are sent while the PoRep proves (once a GPU worker took its first partition: with LAGRANGE=1 and
# no cache file, while its prover is built), not after it; with
# SIZE and KSIZE at 32 GiB the two SRS do not fit one H200 host and GPU together, so the daemon must order them.
set -uo pipefail
if [ "${1:-}" = --pack ]; then
    b=$2 out=$3
    mkdir -p "$out/bin" "$out/lib"
    cp "$b/cuzk" "$b/cuzk-bench" "$out/bin/"
    # everything but the C runtime itself, which the target machine has
    ldd "$b/cuzk" "$b/cuzk-bench" | awk '$3 ~ /^\// {print $3}' | sort -u |
        grep -vE '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so' | xargs -r cp -L -t "$out/lib/"
    [ -d "$b/srs-cache" ] && cp -r "$b/srs-cache" "$out/"
    du -sh "$out"
    exit 0
fi
d=$(cd "${1:?usage: gpu-daemon-check.sh DIR | --pack BUILD_DIR OUT_DIR}" && pwd)
export LD_LIBRARY_PATH="$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
tmp=$(mktemp -d)
mkdir -p "$d/srs-cache"
size=${SIZE:-2048}
if [ "$size" = 2048 ]; then kinds=${KINDS-wpost winning snap} count=${COUNT:-$([ "${POREP:-1}" = 1 ] && echo 4 || echo 0)}
else kinds=${KINDS-} count=${COUNT:-0}; fi
printf '[daemon]\nlisten = "unix://%s/cuzk.sock"\n\n[srs]\nparam_cache = "%s/none"\nlocal_cache = "%s/srs-cache"\nrelease_resident_bases = %s\n\n[gpus]\nbackend = "%s"\nexit_when_all_lost = %s\ngpu_workers_per_device = %s\n' \
    "$tmp" "$tmp" "$d" "$([ "${RELEASE:-0}" = 1 ] && echo true || echo false)" "${BACKEND:-gpu}" \
    "$([ "${EXIT_WHEN_LOST:-0}" = 1 ] && echo true || echo false)" "${WORKERS:-2}" >"$tmp/cuzk.toml"
# MAXRES=N: gpus.max_resident_circuits (with KINDS, 1 makes every kind switch evict the other circuit's prover)
[ -n "${MAXRES:-}" ] && printf 'max_resident_circuits = %s\n' "$MAXRES" >>"$tmp/cuzk.toml"
# LAGRANGE=1: the GPU provers take the H query in Lagrange form (gpus.h_lagrange), their bases cached in
# $d/lagrange-cache (a second run loads what the first built); every prover's creation must log it
[ "${LAGRANGE:-0}" = 1 ] && printf 'h_lagrange = true\nh_lagrange_cache = "%s/lagrange-cache"\n' "$d" >>"$tmp/cuzk.toml" &&
    mkdir -p "$d/lagrange-cache"
ksize=${KSIZE:-2048}
if [ "$size" != 2048 ] || [ "$ksize" != 2048 ]; then
    big=$size; [ "$ksize" -gt "$big" ] && big=$ksize
    printf '\n[testing]\nseeded_setup_any = true\nseeded_setup_cache = %s\n' \
        "${SEEDED_CACHE:-$([ "$big" -gt 536870912 ] && echo false || echo true)}" >>"$tmp/cuzk.toml"
fi
cat "$tmp/cuzk.toml"
CUZK_TEST_BREAK_GPU="${BREAK_GPU:-}" "$d/bin/cuzk" --config "$tmp/cuzk.toml" --log-level debug >"$tmp/cuzk.log" 2>&1 &
pid=$!
for _ in $(seq 300); do [ -S "$tmp/cuzk.sock" ] && break; sleep 0.1; done
# the socket appears when gRPC binds it, before it listens: wait until a call is answered
for _ in $(seq 100); do "$d/bin/cuzk-bench" -a "unix://$tmp/cuzk.sock" status >/dev/null 2>&1 && break; sleep 0.1; done
a="unix://$tmp/cuzk.sock"
rc=0
t0=$(date +%s%N)
if [ "${POREP:-1}" = 1 ]; then
    "$d/bin/cuzk-bench" gen-vanilla porep --sector-size "$size" -o "$tmp/c1.json" || rc=1
    echo "== gen-vanilla porep --sector-size $size: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
fi
if [ "${LOSE_ALL:-0}" = 1 ]; then
    # the only GPU breaks at the first partition: that proof fails, the next request is refused
    o=$("$d/bin/cuzk-bench" -a "$a" single -t porep --c1 "$tmp/c1.json" 2>&1); echo "$o" | grep -vE "^proof|^ +[0-9a-f]" | tail -6
    echo "$o" | grep -q "no usable GPU" || { echo "the proof did not fail with 'no usable GPU'"; rc=1; }
    if [ "${EXIT_WHEN_LOST:-0}" = 1 ]; then
        # the daemon leaves by itself, status 75, for a supervisor to restart it
        for _ in $(seq 300); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
        if kill -0 $pid 2>/dev/null; then echo "the daemon did not exit by itself within 30 s"; rc=1; kill -TERM $pid; fi
        wait $pid; st=$?
        echo "== the daemon exited by itself with status $st"
        [ $st = 75 ] || { echo "exit status $st, not 75"; rc=1; }
        pid=
    else
        o=$("$d/bin/cuzk-bench" -a "$a" single -t porep --c1 "$tmp/c1.json" 2>&1); echo "$o" | tail -3
        echo "$o" | grep -q "no usable GPU" || { echo "the next request was not refused"; rc=1; }
    fi
else
    # one proof of each kind in $1 (sector size KSIZE)
    prove_kinds() {
        for k in $1; do
            case $k in
                wpost) g="window-post -c 2" ;;
                winning) g="winning-post" ;;
                snap) g="snap-prove" ;;
                *) echo "unknown kind $k in KINDS"; rc=1; continue ;;
            esac
            # gen-vanilla prints the `single` command that submits its file (randomness or commitments included)
            cmd=$("$d/bin/cuzk-bench" gen-vanilla $g --sector-size "$ksize" -o "$tmp/$k.json" | sed -n 's/^submit: cuzk-bench //p')
            [ -n "$cmd" ] || { echo "gen-vanilla $g printed no submit line"; rc=1; continue; }
            t0=$(date +%s%N)
            o=$("$d/bin/cuzk-bench" -a "$a" $cmd 2>&1) || rc=1
            echo "$o" | grep -E "^status|^error|^timings|^proof|gRPC"
            echo "== $k (setup or cache read + upload + prove): $(( ($(date +%s%N) - t0) / 1000000 )) ms"
        done
    }
    # PRE_KINDS: proved before the PoRep (their provers resident when it comes: with MIX=1 and LAGRANGE=1, a Winning
    # PoSt's proves while the PoRep's prover is built)
    [ -n "${PRE_KINDS:-}" ] && prove_kinds "$PRE_KINDS"
    if [ -n "${PRELOAD:-}" ]; then
        t0=$(date +%s%N)
        # --wait: the client polls /metrics until the background builds end, and prints how many were built
        "$d/bin/cuzk-bench" -a "$a" preload -c "$PRELOAD" --wait > "$tmp/preload.out" 2>&1 || rc=1
        cat "$tmp/preload.out"
        grep -qE "GPU provers built [1-9][0-9]*, not built 0" "$tmp/preload.out" || { echo "preload --wait: not every prover built"; rc=1; }
        echo "== preload -c $PRELOAD --wait returned in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
        ndev=$(grep -m1 -oE "building its GPU prover on [0-9]+ device" "$tmp/cuzk.log" | grep -oE "[0-9]+ device" | grep -oE "[0-9]+")
        [ -n "$ndev" ] || { echo "the daemon logged no background prover build for $PRELOAD"; rc=1; ndev=0; }
        grep -E "PreloadSRS circuit_id=$PRELOAD: GPU device" "$tmp/cuzk.log" | sed 's/^.*PreloadSRS/PreloadSRS/' | cut -c1-300
        nready=$(grep -cE "PreloadSRS circuit_id=$PRELOAD: GPU device [0-9]+'s prover ready" "$tmp/cuzk.log")
        [ "$nready" -ge 1 ] && [ "$nready" = "$ndev" ] || { echo "$nready of $ndev device provers ready after the preload"; rc=1; }
        nbuilt=$(grep -c "constraints built in" "$tmp/cuzk.log")
    fi
    t0=$(date +%s%N)
    if [ "${POREP:-1}" = 1 ] && [ "${MIX:-0}" = 1 ]; then
        # the PoRep in the background; the KINDS go in once a GPU worker took its first partition (a farm's
        # WindowPoSt arriving while a C2 proves: it outranks the PoRep and must wait for memory, not fail; a
        # Winning PoSt arriving while the PoRep's prover is built proves meanwhile when its own is resident)
        n0=$(grep -c "GPU_PICKUP" "$tmp/cuzk.log") # the PRE_KINDS' pickups are not the PoRep's
        [ $rc = 0 ] && { "$d/bin/cuzk-bench" -a "$a" single -t porep --c1 "$tmp/c1.json" >"$tmp/porep.out" 2>&1 & }
        bg=$!
        if [ "${MIX_AT:-}" = load ]; then # MIX_AT=load: while the PoRep's SRS loads (TIMELINE SRS_LOAD)
            for _ in $(seq 3000); do grep -qE "SRS_LOAD,.*circuit=porep-|no official parameters for porep-" "$tmp/cuzk.log" && break; kill -0 $bg 2>/dev/null || break; sleep 0.1; done
            sleep "${MIX_DELAY:-0}"
            echo "== the PoRep's SRS load began; $(( ($(date +%s%N) - t0) / 1000000 )) ms after it was sent, KINDS go in"
        else
            for _ in $(seq 3000); do [ "$(grep -c "GPU_PICKUP" "$tmp/cuzk.log")" -gt "$n0" ] && break; kill -0 $bg 2>/dev/null || break; sleep 0.1; done
            sleep "${MIX_DELAY:-0}" # MIX_DELAY seconds more (into a Lagrange build's transform)
            echo "== the PoRep's first partition went to a GPU worker; $(( ($(date +%s%N) - t0) / 1000000 )) ms after it was sent, KINDS go in"
        fi
    elif [ "${POREP:-1}" = 1 ]; then
        [ $rc = 0 ] && { "$d/bin/cuzk-bench" -a "$a" single -t porep --c1 "$tmp/c1.json" || rc=1; }
        echo "== single (setup or cache read + upload + prove): $(( ($(date +%s%N) - t0) / 1000000 )) ms"
        # PRELOAD of this PoRep's circuit: its partitions found the provers the preload built
        if [ -n "${PRELOAD:-}" ] && [ "${PRELOAD#porep-}" != "$PRELOAD" ]; then
            [ "$(grep -c "constraints built in" "$tmp/cuzk.log")" = "$nbuilt" ] ||
                { echo "the PoRep after PRELOAD=$PRELOAD built a prover"; rc=1; }
        fi
    fi
    t0=$(date +%s%N)
    if [ "$count" -gt 0 ]; then
        [ $rc = 0 ] && { "$d/bin/cuzk-bench" -a "$a" batch -t porep --c1 "$tmp/c1.json" -c "$count" -j "${JOBS:-2}" || rc=1; }
        echo "== batch of $count, ${JOBS:-2} in flight: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
    fi
    prove_kinds "$kinds"
    if [ "${MIX_AT:-}" = load ] && [ -n "${bg:-}" ]; then # spec bug #7: they must not wait for the PoRep's SRS load
        if grep -q "SRS loaded successfully circuit_id=porep-" "$tmp/cuzk.log"; then
            echo "== KINDS done after the PoRep's SRS load ended: they waited for it"; rc=1
        else
            echo "== KINDS done while the PoRep's SRS was still loading"
        fi
    fi
    # AGAIN=1: one more PoRep after the KINDS (with MAXRES=1 its prover was evicted by theirs: built again)
    if [ "${AGAIN:-0}" = 1 ] && [ "${POREP:-1}" = 1 ] && [ $rc = 0 ]; then
        t0=$(date +%s%N)
        "$d/bin/cuzk-bench" -a "$a" single -t porep --c1 "$tmp/c1.json" || rc=1
        echo "== PoRep again after KINDS: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
    fi
    if [ -n "${bg:-}" ] && [ "${QUIT_AFTER_KINDS:-0}" = 1 ]; then
        echo "== QUIT_AFTER_KINDS: the PoRep is left unfinished ($(grep -c "GPU_END" "$tmp/cuzk.log") partition(s) ended so far)"
    elif [ -n "${bg:-}" ]; then
        wait $bg || rc=1
        grep -E "^status|^error|^timings|gRPC" "$tmp/porep.out"
        echo "== the PoRep beside KINDS ended $(( ($(date +%s%N) - t0) / 1000000 )) ms after it was sent"
    fi
fi
if [ -n "$pid" ]; then
o=$("$d/bin/cuzk-bench" -a "$a" status) || rc=1
echo "$o"
# the budget as the daemon counts it (the provers' own page-locked host memory included): a prover with its
# matrices in host memory (CUZK_TIMING ... host_matrices) must show in cuzk_prover_host_bytes
"$d/bin/cuzk-bench" -a "$a" metrics > "$tmp/budget.txt" 2>/dev/null || rc=1
grep -E "^cuzk_(memory_budget_used_bytes|prover_host_bytes|witness_staging_bytes) " "$tmp/budget.txt"
if grep -q "CUZK_TIMING.* host_matrices" "$tmp/cuzk.log" && grep -q "^cuzk_prover_host_bytes 0$" "$tmp/budget.txt"; then
    echo "a prover holds its matrices in host memory but cuzk_prover_host_bytes is 0"; rc=1
fi
if [ "${LOSE_ALL:-0}" != 1 ]; then
    echo "$o" | grep -q "^proofs: [0-9]* completed, 0 failed" || { echo "a proof failed"; rc=1; }
fi
fi
if [ "${LAGRANGE:-0}" = 1 ]; then
    nb=$(grep -c "prover for .* built" "$tmp/cuzk.log"); nl=$(grep -c "prover for .* built.*H in Lagrange form" "$tmp/cuzk.log")
    nc=$(grep -c "loaded and checked" "$tmp/cuzk.log")
    echo "== Lagrange H: $nl of $nb provers ($nc with their bases from the cache)"
    grep -o "H in Lagrange form[^;]*" "$tmp/cuzk.log" | sed 's/^/   /'
    [ "$nb" -gt 0 ] && [ "$nl" = "$nb" ] || { echo "a prover did not take the Lagrange form"; rc=1; }
    # and C's fold into L (on unless CZ_GPU_PROVER_LAG_FOLD=0)
    nf=$(grep -c "prover for .* built.*folded into L" "$tmp/cuzk.log")
    echo "== C folded into L: $nf of $nb provers"
    [ "${CZ_GPU_PROVER_LAG_FOLD:-1}" = 0 ] || [ "$nf" = "$nb" ] || { echo "a prover did not fold C into L"; rc=1; }
    # LAGRANGE_CACHED=1 (a second run on DIR's cache): every prover must have loaded its bases
    [ "${LAGRANGE_CACHED:-0}" = 1 ] && [ "$nc" != "$nb" ] && { echo "a prover did not load its bases from the cache"; rc=1; }
fi
# RELEASE=1 (srs.release_resident_bases): every circuit proved on the GPU must have had its host bases freed once
# the GPUs held them; with MAXRES=1, KINDS and AGAIN=1 the last PoRep rebuilds its prover from restored bases
if [ "${RELEASE:-0}" = 1 ] && [ "${BACKEND:-gpu}" = gpu ]; then
    nr=$(grep -c "SRS bases released from host memory" "$tmp/cuzk.log"); ns=$(grep -c "SRS bases restored" "$tmp/cuzk.log")
    echo "== host bases released $nr time(s), restored $ns time(s)"
    grep -E "SRS bases (released|restored)" "$tmp/cuzk.log" | head -8 | sed 's/^/   /'
    [ "$nr" -gt 0 ] || { echo "no SRS had its host bases released"; rc=1; }
    [ "${MAXRES:-}" != 1 ] || [ -z "$kinds" ] || [ "${AGAIN:-0}" != 1 ] || [ "$ns" -gt 0 ] ||
        { echo "no bases restored after a kind switch"; rc=1; }
fi
if [ "${CZ_GPU_PROVER_PAIRS:-1}" = 1 ] && [ "${BACKEND:-gpu}" = gpu ]; then
    # resident provers only: streamed ones (a 32 GiB PoRep on an 80 GB card) never take pair sums
    nb=$(grep -c "prover for .* built in [0-9]* ms (resident)" "$tmp/cuzk.log"); np=$(grep -c "prover for .* built.*pair sums beside" "$tmp/cuzk.log")
    echo "== pair sums: $np of $nb resident provers"
    grep -o "pair sums beside[^;]*" "$tmp/cuzk.log" | sed 's/^/   /'
    # enforced at 2 KiB, where they always fit; a 32 GiB prover takes them only where the device has room (not on
    # an 80 GB card: a 32 GiB SnapDeals prover there takes none, and proves)
    if [ "$size" = 2048 ] && [ "$ksize" = 2048 ]; then
        [ "$nb" = 0 ] || [ "$np" -gt 0 ] || { echo "no prover took pair sums"; rc=1; }
    fi
fi
if [ -n "${BREAK_GPU:-}" ] && [ -n "$pid" ]; then
    "$d/bin/cuzk-bench" -a "$a" metrics > "$tmp/metrics.txt" || rc=1
    grep -E "^cuzk_gpu_lost|^cuzk_partition_retries_total" "$tmp/metrics.txt"
    grep -q "^cuzk_gpu_lost{ordinal=\"$BREAK_GPU\"} 1" "$tmp/metrics.txt" || { echo "metrics: GPU $BREAK_GPU not lost"; rc=1; }
fi
if [ -n "$pid" ] && [ "${QUIT_AFTER_KINDS:-0}" = 1 ]; then
    # its PoRep unfinished, the prover's build under way: a SIGTERM stops that build (cz_backend.abort_builds)
    t0=$(date +%s%N)
    kill -TERM $pid
    for _ in $(seq 600); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    if kill -0 $pid 2>/dev/null; then
        echo "== SIGTERM during the build: the daemon still ran after 60 s"; rc=1; kill -KILL $pid
    else
        echo "== SIGTERM during the build: the daemon exited in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
    fi
    wait $pid 2>/dev/null
    grep -E "build stopped|builds were aborted|clean exit" "$tmp/cuzk.log" | cut -c1-240 | head -4
    [ -n "${bg:-}" ] && kill $bg 2>/dev/null
elif [ -n "$pid" ]; then
    kill -TERM $pid
    wait $pid || rc=1
fi
grep -E "backend|GPU device|GPU_TIMING|FIN_TIMING|proof completed|proof failed|error|seeded|recorded|fixed-base" "$tmp/cuzk.log" | head -80
# CUDA loads every kernel when the daemon starts (cz_gpu_load_kernels_eagerly), unless the caller's environment chose
if [ -z "${CUDA_MODULE_LOADING:-}" ]; then
    grep -q "CUDA_MODULE_LOADING=EAGER" "$tmp/cuzk.log" || { echo "the daemon did not ask CUDA for eager kernel loading"; rc=1; }
fi
# every proof must have run on the GPU backend
grep -q "engine started backend=${BACKEND:-gpu}" "$tmp/cuzk.log" || { echo "no GPU backend line in the daemon log"; rc=1; }
# and logged cuzk's per-partition figures (CUZK_TIMING ... ntt_msm_h_ms= ... gpu_total_ms=)
if [ "${BACKEND:-gpu}" = gpu ] && [ "${LOSE_ALL:-0}" != 1 ]; then
    grep -o "CUZK_TIMING.*" "$tmp/cuzk.log" | tail -3
    grep -q "CUZK_TIMING device=[0-9]* .*ntt_msm_h_ms=.*gpu_total_ms=" "$tmp/cuzk.log" || { echo "no CUZK_TIMING line"; rc=1; }
fi
# per device (the engine numbers workers device by device, "W prover worker(s)" each): partitions started there
ndev=$(grep -c "GPU device [0-9]*: ordinal" "$tmp/cuzk.log")
if [ "$ndev" -gt 0 ]; then
    per=$(sed -n 's/.*GPU device 0: ordinal .*, \([0-9]*\) prover worker(s).*/\1/p' "$tmp/cuzk.log" | head -1)
    for d in $(seq 0 $((ndev - 1))); do
        k=$(grep -o "GPU_TIMING prove_start returned .* worker=[0-9]*" "$tmp/cuzk.log" | sed 's/.*worker=//' |
            awk -v d="$d" -v per="${per:-2}" 'int($1 / per) == d' | wc -l)
        echo "== GPU device $d: $k partition(s) started"
        # which idle worker takes a partition is up to the scheduler: a hard check only when asked
        [ "$k" -gt 0 ] || [ "${ALL_DEVICES:-0}" = 0 ] || { echo "device $d proved nothing"; rc=1; }
    done
fi
if [ -n "${BREAK_GPU:-}" ]; then
    grep -E "CUZK_TEST_BREAK_GPU|lost|requeued|no usable GPU" "$tmp/cuzk.log" | head -8
    grep -q "GPU device [0-9]* (ordinal $BREAK_GPU) lost: cuda" "$tmp/cuzk.log" || { echo "GPU $BREAK_GPU was not taken out of service"; rc=1; }
    if [ "${LOSE_ALL:-0}" = 1 ]; then
        grep -q "no usable GPU: all 1 devices lost" "$tmp/cuzk.log" || { echo "no 'no usable GPU' line"; rc=1; }
        if [ "${EXIT_WHEN_LOST:-0}" = 1 ]; then
            grep -E "exit_when_all_lost|exit 75" "$tmp/cuzk.log" | head -3
            grep -q "exit 75" "$tmp/cuzk.log" || { echo "no 'exit 75' line"; rc=1; }
        fi
    else
        grep -q "partition requeued for another GPU" "$tmp/cuzk.log" || { echo "no partition was requeued"; rc=1; }
        ! grep -q "proof failed" "$tmp/cuzk.log" || { echo "a proof failed"; rc=1; }
    fi
fi
[ -n "${OUT:-}" ] && cp "$tmp/cuzk.log" "$OUT/"
rm -rf "$tmp"
[ $rc = 0 ] && echo "gpu daemon check: OK" || echo "gpu daemon check: FAILED"
exit $rc
