// blst (supranational, via @chainsafe/blst) timing anchor for bench/bench_pairing.c: blst exposes no
// raw pairing, so this times verify() = hash-to-G2 + a 2-pair pairing product (one final
// exponentiation), median of runs after warm-up. Usage: node blst_pairing_bench.mjs [runs]
import blst from '@chainsafe/blst';

const runs = Number(process.argv[2] || 200);
const sk = blst.SecretKey.fromKeygen(new Uint8Array(32).fill(7));
const pk = sk.toPublicKey(), msg = new TextEncoder().encode('cuzk pairing bench');
const sig = sk.sign(msg);
for (let i = 0; i < 20; i++) if (!blst.verify(msg, pk, sig)) throw new Error('blst verify failed');
const t = [];
const cpu0 = process.cpuUsage();
for (let i = 0; i < runs; i++) {
  const s = process.hrtime.bigint();
  blst.verify(msg, pk, sig);
  t.push(Number(process.hrtime.bigint() - s) / 1e3);
}
const cpu = process.cpuUsage(cpu0);
t.sort((a, b) => a - b);
// CPU time per call as well: the build machine is shared, wall time includes waiting for a core
console.log(`blst verify (hash-to-G2 + 2-pair product)  median ${t[runs >> 1].toFixed(1)} us wall   min ${t[0].toFixed(1)} us wall   ` +
  `${((cpu.user + cpu.system) / runs).toFixed(1)} us CPU per call`);
