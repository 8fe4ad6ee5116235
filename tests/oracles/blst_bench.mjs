// Anchor timings from @chainsafe/blst (supranational blst, native code) for what it exposes that is
// comparable with cz_bench_ff: G1 addition (aggregatePublicKeys), G2 addition (aggregateSignatures),
// fixed-base G1 scalar multiplication (SecretKey.toPublicKey) and BLS verify (2 Miller loops + final
// exponentiation + hash-to-G2). Each figure is the median of 15 rounds (wall and CPU time). The per-addition cost is
// (t(n) - t(2)) / (n - 2), which removes the napi call and the final affine conversion.
// Before timing, each operation is checked against @noble/curves once (so we time the right thing).
// Usage: node tests/oracles/blst_bench.mjs   -> a Markdown table for docs/perf.md
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import blst from '@chainsafe/blst';
import { bls12_381 as bls } from '@noble/curves/bls12-381.js';

const { SecretKey, aggregatePublicKeys, aggregateSignatures, verify } = blst;
const r = bls.fields.Fr.ORDER;
const be32 = (k) => Uint8Array.from(Buffer.from(k.toString(16).padStart(64, '0'), 'hex'));
const eq = (a, b) => Buffer.from(a).equals(Buffer.from(b));
const randScalar = () => (BigInt('0x' + randomBytes(40).toString('hex')) % (r - 1n)) + 1n; // in [1, r)
const median = (v) => {
    const s = [...v].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
// {wall, cpu}: ms per call of fn, medians over rounds; each round calls fn `reps` times. CPU time is
// the process's (blst runs synchronously on this thread): on a shared machine wall time also counts
// waiting for a core.
function time(fn, reps, rounds = 15) {
    const w = [], c = [];
    fn();
    for (let i = 0; i < rounds; i++) {
        const c0 = process.cpuUsage(), t0 = process.hrtime.bigint();
        for (let j = 0; j < reps; j++) fn();
        w.push(Number(process.hrtime.bigint() - t0) / 1e6 / reps);
        const cu = process.cpuUsage(c0);
        c.push((cu.user + cu.system) / 1e3 / reps);
    }
    return { wall: median(w), cpu: median(c) };
}

let failures = 0;
const check = (ok, what) => {
    if (!ok) failures++;
    console.error(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
};

// Inputs: 256 distinct G1 points (public keys) and G2 points (signatures), from random scalars.
const N = 256;
const ks = Array.from({ length: N }, randScalar);
const sks = ks.map((k) => SecretKey.fromBytes(be32(k)));
const pks = sks.map((sk) => sk.toPublicKey());
const msg = new TextEncoder().encode('cuzk anchor');
const sigs = sks.map((sk) => sk.sign(msg));

// Cross-checks against noble.
check(eq(pks[0].toBytes(true), bls.G1.Point.BASE.multiply(ks[0]).toBytes(true)), 'blst k*G1 equals noble');
const sum = (ks[0] + ks[1]) % r;
check(eq(aggregatePublicKeys([pks[0], pks[1]]).toBytes(true), bls.G1.Point.BASE.multiply(sum).toBytes(true)),
      'aggregatePublicKeys is G1 addition');
const s0 = bls.G2.Point.fromBytes(sigs[0].toBytes(true)), s1 = bls.G2.Point.fromBytes(sigs[1].toBytes(true));
check(eq(aggregateSignatures([sigs[0], sigs[1]]).toBytes(true), s0.add(s1).toBytes(true)),
      'aggregateSignatures is G2 addition');
check(verify(msg, pks[0], sigs[0]) && !verify(msg, pks[1], sigs[0]), 'verify accepts a good and rejects a bad signature');

const n = 1024;
const pkList = Array.from({ length: n }, (_, i) => pks[i % N]);
const sigList = Array.from({ length: n }, (_, i) => sigs[i % N]);
const pk2 = pkList.slice(0, 2), sig2 = sigList.slice(0, 2);
const g1n = time(() => aggregatePublicKeys(pkList, false), 10), g1two = time(() => aggregatePublicKeys(pk2, false), 2000);
const g2n = time(() => aggregateSignatures(sigList, false), 5), g2two = time(() => aggregateSignatures(sig2, false), 2000);
const kb = ks.map(be32);
let idx = 0;
const fixed = time(() => SecretKey.fromBytes(kb[idx++ % N]).toPublicKey(), 200);
const ver = time(() => verify(msg, pks[0], sigs[0]), 20);

const perAdd = (big, two, k) => (big - two) / (k - 2);
const rows = [
    ['G1 add (aggregatePublicKeys, per add)', perAdd(g1n.wall, g1two.wall, n), perAdd(g1n.cpu, g1two.cpu, n)],
    ['G2 add (aggregateSignatures, per add)', perAdd(g2n.wall, g2two.wall, n), perAdd(g2n.cpu, g2two.cpu, n)],
    ['G1 fixed-base mult (SecretKey.toPublicKey)', fixed.wall, fixed.cpu],
    ['BLS verify (2 pairings + hash-to-G2)', ver.wall, ver.cpu],
];
const version = JSON.parse(readFileSync(new URL('./node_modules/@chainsafe/blst/package.json', import.meta.url))).version;
console.log(`@chainsafe/blst ${version} on ${os.cpus()[0].model.trim()}, node ${process.version}\n`);
console.log('| blst operation                              |    wall ns |     CPU ns |');
console.log('|---------------------------------------------|-----------:|-----------:|');
const f = (ms) => (ms * 1e6).toFixed(0).padStart(10);
for (const [name, w, c] of rows) console.log(`| ${name.padEnd(43)} | ${f(w)} | ${f(c)} |`);
process.exit(failures ? 1 : 0);
