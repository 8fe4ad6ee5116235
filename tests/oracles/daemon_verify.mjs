// Verifies the daemon's Groth16 proofs with @noble/curves, independently of the C verifier.
// usage: node daemon_verify.mjs PARAMS_FILE PROOF_HEX INPUTS
//   PARAMS_FILE: bellperson .params (the vk is read from its start: alpha1 beta1 beta2 gamma2 delta1 delta2,
//                uncompressed big-endian, then u32 BE IC count and the IC points)
//   PROOF_HEX:   192*k bytes (A compressed G1, B compressed G2, C compressed G1 per partition)
//   INPUTS:      per partition the public inputs without ONE, decimal, ',' between inputs, ';' between partitions
// Prints one line per partition (OK / INVALID) and exits 0 only when all verify.
import { bls12_381 as bls } from '@noble/curves/bls12-381.js';
import { readFileSync } from 'node:fs';

const [paramsPath, proofHex, inputsArg] = process.argv.slice(2);
const { G1, G2, fields: { Fp12, Fr } } = bls;
const buf = readFileSync(paramsPath);
let off = 0;
const g1u = () => { const p = G1.Point.fromBytes(buf.subarray(off, off + 96)); off += 96; p.assertValidity(); return p; };
const g2u = () => { const p = G2.Point.fromBytes(buf.subarray(off, off + 192)); off += 192; p.assertValidity(); return p; };
const alpha1 = g1u(), beta1 = g1u(), beta2 = g2u(), gamma2 = g2u(), delta1 = g1u(), delta2 = g2u();
void beta1; void delta1;
const nic = buf.readUInt32BE(off); off += 4;
const ic = Array.from({ length: nic }, g1u);
const proof = Buffer.from(proofHex, 'hex');
const parts = inputsArg.split(';').map((s) => (s ? s.split(',').map(BigInt) : []));
if (proof.length !== 192 * parts.length) { console.log(`proof is ${proof.length} bytes for ${parts.length} partitions`); process.exit(2); }
let all = true;
parts.forEach((xs, k) => {
  const p = proof.subarray(192 * k, 192 * (k + 1));
  let ok;
  try {
    const A = G1.Point.fromBytes(p.subarray(0, 48)), B = G2.Point.fromBytes(p.subarray(48, 144)), C = G1.Point.fromBytes(p.subarray(144, 192));
    [A, B, C].forEach((P) => P.assertValidity());
    if (xs.length + 1 !== nic) throw new Error(`${xs.length} inputs for ${nic} IC points`);
    let L = ic[0];
    xs.forEach((x, i) => { const s = x % Fr.ORDER; if (s) L = L.add(ic[i + 1].multiply(s)); });
    ok = Fp12.eql(bls.pairingBatch([{ g1: A.negate(), g2: B }, { g1: alpha1, g2: beta2 }, { g1: L, g2: gamma2 }, { g1: C, g2: delta2 }]), Fp12.ONE);
  } catch (e) { ok = false; console.log(`partition ${k}: ${e.message}`); }
  console.log(`partition ${k}: ${ok ? 'OK' : 'INVALID'}`);
  all &&= ok;
});
process.exit(all ? 0 : 1);
