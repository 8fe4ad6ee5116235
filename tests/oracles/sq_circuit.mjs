// A generated circuit written straight to iden3 .r1cs/.wtns (circom would take minutes at 2^16+):
// N constraints t_i * t_i = t_{i+1} - y, so A and B are dense and every MSM is full size.
// Wires: 0 = ONE, 1 = t_N (public output), 2 = y (public input), 3 = t_0 = x (private input),
// 4.. = t_1 .. t_{N-1}. x and y are drawn at random unless given.
// usage: node sq_circuit.mjs N PREFIX [x y]   -> PREFIX.r1cs, PREFIX.wtns
import { writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

const R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
const [nArg, prefix, xArg, yArg] = process.argv.slice(2);
const N = Number(nArg);
if (!(N >= 1) || !prefix) { console.error('usage: sq_circuit.mjs N PREFIX [x y]'); process.exit(2); }
const rand = () => BigInt('0x' + randomBytes(40).toString('hex')) % R;
const x = xArg ? BigInt(xArg) : rand(), y = yArg ? BigInt(yArg) : rand();
const nWires = N + 3;
const wire = (i) => (i === 0 ? 3 : i === N ? 1 : 3 + i); // t_i -> wire id

function field(v, buf, at) { for (let k = 0; k < 4; k++) { buf.writeBigUInt64LE(v & 0xffffffffffffffffn, at + 8 * k); v >>= 64n; } }
function section(type, body) { const h = Buffer.alloc(12); h.writeUInt32LE(type, 0); h.writeBigUInt64LE(BigInt(body.length), 4); return [h, body]; }
function fileHeader(magic, version, nSections) { const h = Buffer.alloc(12); h.write(magic, 0, 'latin1'); h.writeUInt32LE(version, 4); h.writeUInt32LE(nSections, 8); return h; }

// Section 2: per constraint A = [t_i], B = [t_i], C = [-y, t_{i+1}] (terms sorted by wire id).
const TERM = 36, cons = Buffer.alloc(N * (3 * 4 + 4 * TERM));
let p = 0;
function lc(terms) {
  terms.sort((u, v) => u[0] - v[0]);
  cons.writeUInt32LE(terms.length, p); p += 4;
  for (const [w, c] of terms) { cons.writeUInt32LE(w, p); field(c, cons, p + 4); p += TERM; }
}
for (let i = 0; i < N; i++) { lc([[wire(i), 1n]]); lc([[wire(i), 1n]]); lc([[2, R - 1n], [wire(i + 1), 1n]]); }
// Section 1: n8, prime, nWires, nPubOut = 1, nPubIn = 1, nPrvIn = 1, nLabels, nConstraints.
const hdr = Buffer.alloc(64);
hdr.writeUInt32LE(32, 0); field(R, hdr, 4); hdr.writeUInt32LE(nWires, 36);
hdr.writeUInt32LE(1, 40); hdr.writeUInt32LE(1, 44); hdr.writeUInt32LE(1, 48);
hdr.writeBigUInt64LE(BigInt(nWires), 52); hdr.writeUInt32LE(N, 60);
const labels = Buffer.alloc(8 * nWires);
for (let i = 0; i < nWires; i++) labels.writeBigUInt64LE(BigInt(i), 8 * i);
writeFileSync(prefix + '.r1cs', Buffer.concat([fileHeader('r1cs', 1, 3), ...section(1, hdr), ...section(2, cons), ...section(3, labels)]));

const w = new Array(nWires).fill(0n);
w[0] = 1n; w[2] = y;
let t = x;
w[wire(0)] = t;
for (let i = 0; i < N; i++) { t = (t * t + y) % R; w[wire(i + 1)] = t; }
const whdr = Buffer.alloc(40); whdr.writeUInt32LE(32, 0); field(R, whdr, 4); whdr.writeUInt32LE(nWires, 36);
const vals = Buffer.alloc(32 * nWires); w.forEach((v, i) => field(v, vals, 32 * i));
writeFileSync(prefix + '.wtns', Buffer.concat([fileHeader('wtns', 2, 2), ...section(1, whdr), ...section(2, vals)]));
console.log(`${prefix}: ${N} constraints, ${nWires} wires, x=${x} y=${y}`);
