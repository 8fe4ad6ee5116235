// snarkjs `groth16 prove` with the blinding factors r, s chosen by the caller, so that another prover's
// proof can be compared with snarkjs's byte for byte. snarkjs draws r, then s, with Fr.random() of the
// ffjavascript curve singleton it shares with us; we replace that function before proving.
// usage: node snarkjs_prove_fixed.mjs KEY.zkey WITNESS.wtns R S proof.json public.json   (R, S decimal)
import { writeFileSync } from 'node:fs';
import { buildBls12381 } from 'ffjavascript';
import * as snarkjs from 'snarkjs';

const [zkeyPath, wtnsPath, rDec, sDec, proofPath, publicPath] = process.argv.slice(2);
if (!publicPath) { console.error('usage: snarkjs_prove_fixed.mjs zkey wtns r s proof.json public.json'); process.exit(2); }
const bls = await buildBls12381(); // globalThis singleton: snarkjs' getCurveFromQ returns this object
const draws = [BigInt(rDec), BigInt(sDec)];
let calls = 0;
bls.Fr.random = () => bls.Fr.e(draws[calls++]);
const t0 = performance.now();
const { proof, publicSignals } = await snarkjs.groth16.prove(zkeyPath, wtnsPath);
if (calls !== 2) throw new Error(`snarkjs drew ${calls} random values, expected r and s`);
console.log(`time snarkjs_prove ${((performance.now() - t0) / 1000).toFixed(3)}`);
// The same text as the CLI's proof.json / public.json (JSON with one-space indent, no final newline).
writeFileSync(proofPath, JSON.stringify(proof, null, 1));
writeFileSync(publicPath, JSON.stringify(publicSignals, null, 1));
await bls.terminate();
