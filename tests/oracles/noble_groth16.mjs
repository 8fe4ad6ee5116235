// Groth16 verification with @noble/curves (an independent BLS12-381 and pairing implementation) of
// snarkjs-format files: verification_key.json, public.json, proof.json. Every point is checked to be on
// the curve and in the subgroup; public signals must be below r.
// e(A, B) = e(alpha, beta) e(L, gamma) e(C, delta), L = IC_0 + sum pub_i IC_i, as one multi-pairing = 1.
// usage: node noble_groth16.mjs vk.json public.json proof.json   -> "OK" exit 0, "INVALID" exit 1
import { readFileSync } from 'node:fs';
import { bls12_381 as bls } from '@noble/curves/bls12-381.js';

const [vk, pub, proof] = process.argv.slice(2, 5).map((f) => JSON.parse(readFileSync(f, 'utf8')));
const { G1, G2, fields } = bls;
function pointG1(a) {
  const P = G1.Point.fromAffine({ x: BigInt(a[0]), y: BigInt(a[1]) });
  if (a[2] !== '1') throw new Error('G1 point is not affine');
  P.assertValidity();
  return P;
}
function pointG2(a) {
  const fp2 = (c) => fields.Fp2.fromBigTuple([BigInt(c[0]), BigInt(c[1])]);
  const P = G2.Point.fromAffine({ x: fp2(a[0]), y: fp2(a[1]) });
  if (a[2][0] !== '1' || a[2][1] !== '0') throw new Error('G2 point is not affine');
  P.assertValidity();
  return P;
}
if (vk.IC.length !== pub.length + 1) { console.log(`INVALID: ${pub.length} public signals for ${vk.IC.length} IC points`); process.exit(1); }
let L = pointG1(vk.IC[0]);
pub.forEach((v, i) => {
  const k = BigInt(v);
  if (k >= fields.Fr.ORDER) throw new Error(`public signal ${i} is not below r`);
  if (k !== 0n) L = L.add(pointG1(vk.IC[i + 1]).multiply(k));
});
const pairs = [
  { g1: pointG1(proof.pi_a).negate(), g2: pointG2(proof.pi_b) },
  { g1: pointG1(vk.vk_alpha_1), g2: pointG2(vk.vk_beta_2) },
  { g1: pointG1(proof.pi_c), g2: pointG2(vk.vk_delta_2) },
];
if (!L.is0()) pairs.push({ g1: L, g2: pointG2(vk.vk_gamma_2) }); // noble's pairing rejects infinity
const ok = fields.Fp12.eql(bls.pairingBatch(pairs), fields.Fp12.ONE);
console.log(ok ? 'OK' : 'INVALID');
process.exit(ok ? 0 : 1);
