// Pairing interop: random points from @noble/curves, pairings computed by cz_tool_pairing_vectors,
// compared as 576-byte Fp12 encodings with noble's pairing / pairingBatch.
// Usage: node pairing_check.mjs <path to cz_tool_pairing_vectors> [single cases] [batches]
import { bls12_381 as bls } from '@noble/curves/bls12-381.js';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

const [tool, nSingleArg, nBatchArg] = process.argv.slice(2);
if (!tool) {
  console.error('usage: pairing_check.mjs <cz_tool_pairing_vectors> [single] [batches]');
  process.exit(2);
}
const nSingle = Number(nSingleArg || 40), nBatch = Number(nBatchArg || 6);
const { G1, G2, fields: { Fp12, Fr } } = bls;
const hex = (u8) => Buffer.from(u8).toString('hex');
const scalar = () => (BigInt('0x' + randomBytes(40).toString('hex')) % (Fr.ORDER - 1n)) + 1n;
const g1 = () => G1.Point.BASE.multiply(scalar());
const g2 = () => G2.Point.BASE.multiply(scalar());
const enc = (P) => hex(P.toBytes(false)); // ZCash uncompressed; ZERO has the 0x40 flag
// expected product; noble rejects infinity, which contributes 1
const expect = (pairs) => {
  const live = pairs.filter(([a, b]) => !a.is0() && !b.is0());
  if (live.length === 0) return hex(Fp12.toBytes(Fp12.ONE));
  if (live.length === 1) return hex(Fp12.toBytes(bls.pairing(live[0][0], live[0][1])));
  return hex(Fp12.toBytes(bls.pairingBatch(live.map(([a, b]) => ({ g1: a, g2: b })))));
};

const cases = [];
const add = (name, pairs) => cases.push({ name, pairs });
add('generators', [[G1.Point.BASE, G2.Point.BASE]]);
for (let i = 0; i < nSingle; i++) add(`single ${i}`, [[g1(), g2()]]);
add('G1 infinity', [[G1.Point.ZERO, g2()]]);
add('G2 infinity', [[g1(), G2.Point.ZERO]]);
for (let i = 0; i < nBatch; i++) add(`batch of 4, ${i}`, [0, 1, 2, 3].map(() => [g1(), g2()]));
add('batch of 4 with infinities', [[g1(), g2()], [G1.Point.ZERO, g2()], [g1(), g2()], [g1(), G2.Point.ZERO]]);
{
  const k = scalar(), P = g1(), Q = g2();
  add('batch that cancels', [[P.multiply(k), Q], [P.negate(), Q.multiply(k)]]);
}
add('batch of 2', [[g1(), g2()], [g1(), g2()]]);

const input = cases.map((c) => [c.pairs.length, ...c.pairs.flatMap(([a, b]) => [enc(a), enc(b)])].join(' ')).join('\n') + '\n';
const out = execFileSync(tool, [], { input, maxBuffer: 1 << 26 }).toString().trim().split('\n');
let failed = 0;
cases.forEach((c, i) => {
  const want = expect(c.pairs);
  if (out[i] !== want) {
    failed++;
    console.error(`MISMATCH ${c.name}\n input: ${input.split('\n')[i]}\n ours:  ${out[i]}\n noble: ${want}`);
  }
});
const cancel = cases.find((c) => c.name === 'batch that cancels');
if (expect(cancel.pairs) !== hex(Fp12.toBytes(Fp12.ONE))) { failed++; console.error('cancelling batch is not 1'); }
console.log(`pairing interop: ${cases.length - failed} of ${cases.length} cases agree with @noble/curves`);
process.exit(failed ? 1 : 0);
