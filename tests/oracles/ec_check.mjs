// Noble/blst side of the EC interop check (line protocol: see tests/tools/ec_vectors.c).
//   node ec_check.mjs gen N    N fresh random cases per category and group, made by @noble/curves
//   node ec_check.mjs check    verifies lines written by cz_tool_ec_vectors with noble AND @chainsafe/blst
// Exit status 0 only if every line passed.
import { bls12_381 as bls } from '@noble/curves/bls12-381.js';
import blst from '@chainsafe/blst';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';

const { Fp, Fp2, Fr } = bls.fields;
const P = Fp.ORDER;
const hex = (b) => Buffer.from(b).toString('hex');
const unhex = (h) => Uint8Array.from(Buffer.from(h, 'hex'));
const be = (v, n) => unhex(v.toString(16).padStart(2 * n, '0'));
const rand = (bytes) => BigInt('0x' + randomBytes(bytes).toString('hex'));
const randFr = () => rand(48) % Fr.ORDER;

// Per group: noble point class, field, b, field encoding (Fp2 is c1 || c0 on the wire), sort bit rule,
// blst decoder (PublicKey = G1, Signature = G2; validate = on-curve + subgroup).
const G = {
  g1: {
    Point: bls.G1.Point, F: Fp, b: 4n, nb: 48,
    encF: (x) => be(x, 48),
    decF: (b) => BigInt('0x' + hex(b)),
    sort: (y) => y > (P - 1n) / 2n,
    randF: () => rand(64) % P,
    blst: (b) => blst.PublicKey.fromBytes(b, true),
  },
  g2: {
    Point: bls.G2.Point, F: Fp2, b: Fp2.fromBigTuple([4n, 4n]), nb: 96,
    encF: (x) => Buffer.concat([be(x.c1, 48), be(x.c0, 48)]),
    decF: (b) => Fp2.fromBigTuple([BigInt('0x' + hex(b.subarray(48))), BigInt('0x' + hex(b.subarray(0, 48)))]),
    sort: (y) => (y.c1 !== 0n ? y.c1 > (P - 1n) / 2n : y.c0 > (P - 1n) / 2n),
    randF: () => Fp2.fromBigTuple([rand(64) % P, rand(64) % P]),
    blst: (b) => blst.Signature.fromBytes(b, true, false),
  },
};

const throws = (f) => { try { f(); return false; } catch { return true; } };
const errOf = (f) => { try { f(); return ''; } catch (e) { return String(e.message || e); } };

// A curve point that is not multiplied by the cofactor. noble refuses to encode it (toBytes asserts
// validity), so the encoding is built here from the field encodings and the ZCash flag rules.
function nonSubgroup(g) {
  for (;;) {
    const x = g.randF();
    const y0 = (() => { try { return g.F.sqrt(g.F.add(g.F.mul(g.F.sqr(x), x), g.b)); } catch { return undefined; } })();
    if (y0 === undefined) continue;
    const y = randomBytes(1)[0] & 1 ? g.F.neg(y0) : y0;
    const c = Buffer.from(g.encF(x));
    c[0] |= 0x80 | (g.sort(y) ? 0x20 : 0);
    const u = Buffer.concat([g.encF(x), g.encF(y)]);
    return { x, y, c, u };
  }
}

function gen(n) {
  const out = [];
  let selfFail = 0;
  const self = (ok, what) => { if (!ok) { selfFail++; console.error('noble self-check failed:', what); } };
  for (const [name, g] of Object.entries(G)) {
    const { Point } = g;
    out.push(`gen ${name} ${hex(Point.BASE.toBytes(true))} ${hex(Point.BASE.toBytes(false))}`);
    const pts = [];
    for (let i = 0; i < n; i++) {
      const p = i % 50 === 0 ? Point.ZERO : Point.BASE.multiply(1n + (randFr() % (Fr.ORDER - 1n)));
      pts.push(p);
      out.push(`enc ${name} ${hex(p.toBytes(true))} ${hex(p.toBytes(false))}`);
    }
    for (let i = 0; i < n; i++) {
      const p = pts[(i + 1) % n].is0() ? Point.BASE : pts[(i + 1) % n];
      const k = i === 0 ? 0n : i === 1 ? 1n : i === 2 ? Fr.ORDER - 1n : randFr();
      out.push(`mul ${name} ${hex(p.toBytes(false))} ${hex(be(k, 32))} ${hex(p.multiplyUnsafe(k).toBytes(false))}`);
    }
    for (let i = 0; i < n; i++) {
      const { x, y, c, u } = nonSubgroup(g);
      const q = Point.fromAffine({ x, y });
      self(!q.isTorsionFree(), 'random curve point is torsion-free');
      self(/subgroup/.test(errOf(() => Point.fromBytes(c))) && /subgroup/.test(errOf(() => Point.fromBytes(u))),
        'noble does not reject the non-subgroup encoding for the subgroup reason');
      out.push(`nonsub ${name} ${hex(c)} ${hex(u)}`);
    }
    // Malformed flag bits and ranges, made from noble's own valid encodings.
    const kinds = [
      ['c-flag-clear', (c, u) => { c[0] &= 0x7f; return c; }],
      ['u-flag-set', (c, u) => { u[0] |= 0x80; return u; }],
      ['u-sort', (c, u) => { u[0] |= 0x20; return u; }],
      ['inf-sort', () => { const z = Point.ZERO.toBytes(true); z[0] |= 0x20; return z; }],
      ['inf-u-sort', () => { const z = Point.ZERO.toBytes(false); z[0] |= 0x20; return z; }],
      ['inf-payload', () => { const z = Point.ZERO.toBytes(randomBytes(1)[0] & 1 ? true : false); z[1 + (randomBytes(2).readUInt16BE() % (z.length - 1))] |= 1 << (randomBytes(1)[0] % 8); return z; }],
      ['inf-low-bits', () => { const z = Point.ZERO.toBytes(true); z[0] |= 1 + (randomBytes(1)[0] % 31); return z; }],
      ['inf-on-finite', (c) => { c[0] |= 0x40; return c; }],
      ['x-ge-p', (c) => { const f = be(P + BigInt(randomBytes(1)[0]), 48); f[0] |= c[0] & 0xe0; c.set(f, 0); return c; }],
      ['y-ge-p', (c, u) => { u.set(be(P + BigInt(randomBytes(1)[0]), 48), g.nb); return u; }],
      ['u-off-curve', (c, u) => { u[u.length - 1] ^= 1 + (randomBytes(1)[0] % 255); return u; }],
    ];
    for (let i = 0; i < n; i++) {
      const [what, f] = kinds[i % kinds.length];
      const p = pts[(i + 1) % n].is0() ? Point.BASE : pts[(i + 1) % n];
      const bad = f(Uint8Array.from(p.toBytes(true)), Uint8Array.from(p.toBytes(false)));
      self(throws(() => Point.fromBytes(bad)), `noble accepts its own malformed ${what}`);
      out.push(`bad ${name} ${what} ${hex(bad)}`);
    }
  }
  process.stdout.write(out.join('\n') + '\n');
  console.error(`ec_check gen: ${out.length} lines, noble self-check failures: ${selfFail}`);
  return selfFail ? 1 : 0;
}

async function check() {
  let pass = 0, fail = 0, lineno = 0;
  const counts = {};
  const ok = (cond, what) => { if (cond) pass++; else { fail++; if (fail <= 20) console.error(`line ${lineno}: ${what}`); } };
  for await (const line of createInterface({ input: process.stdin })) {
    lineno++;
    const [kind, name, a, b, c] = line.trim().split(/\s+/);
    if (!kind) continue;
    const g = G[name];
    if (!g) { ok(false, `unknown group ${name}`); continue; }
    const { Point } = g;
    counts[`${name} ${kind}`] = (counts[`${name} ${kind}`] || 0) + 1;
    if (kind === 'gen' || kind === 'enc') {
      const ca = unhex(a), ua = unhex(b);
      let p, q;
      try { p = Point.fromBytes(ca); q = Point.fromBytes(ua); } catch (e) { ok(false, `noble rejects ${kind}: ${e.message}`); continue; }
      ok(p.equals(q), 'compressed and uncompressed differ');
      ok(hex(p.toBytes(true)) === a && hex(p.toBytes(false)) === b, 'noble re-encoding differs');
      if (kind === 'gen') ok(p.equals(Point.BASE), `${name} generator differs from noble's`);
      if (!p.is0()) {  // blst refuses infinity as a key/signature by design
        let bc, bu;
        try { bc = g.blst(ca); bu = g.blst(ua); } catch (e) { ok(false, `blst rejects ${kind}: ${e.message || e}`); continue; }
        ok(hex(bc.toBytes(false)) === b && hex(bu.toBytes(true)) === a, 'blst re-encoding differs');
      }
    } else if (kind === 'mul') {
      let p, q;
      try { p = Point.fromBytes(unhex(a)); q = Point.fromBytes(unhex(c)); } catch (e) { ok(false, `noble rejects mul point: ${e.message}`); continue; }
      const k = BigInt('0x' + b);
      ok(k < Fr.ORDER && p.multiplyUnsafe(k).equals(q), `${name} [k]P differs`);
    } else if (kind === 'nonsub') {
      const ca = unhex(a), ua = unhex(b);
      ok(/subgroup/.test(errOf(() => Point.fromBytes(ca))), `noble does not reject compressed non-subgroup ${name} for the subgroup`);
      ok(/subgroup/.test(errOf(() => Point.fromBytes(ua))), `noble does not reject uncompressed non-subgroup ${name} for the subgroup`);
      const x = g.decF(ua.subarray(0, g.nb)), y = g.decF(ua.subarray(g.nb));
      const q = Point.fromAffine({ x, y });
      ok(g.F.eql(g.F.sqr(y), g.F.add(g.F.mul(g.F.sqr(x), x), g.b)) && !q.isTorsionFree(), 'not an on-curve, non-subgroup point');
      ok(throws(() => g.blst(ca)) && throws(() => g.blst(ua)), `blst accepts a non-subgroup ${name} point`);
    } else if (kind === 'bad') {
      const bytes = unhex(b);
      ok(throws(() => Point.fromBytes(bytes)), `noble accepts bad ${name} ${a}`);
      ok(throws(() => g.blst(bytes)), `blst accepts bad ${name} ${a}`);
    } else {
      ok(false, `unknown kind ${kind}`);
    }
  }
  console.error(Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', '));
  console.log(`${pass} passed, ${fail} failed`);
  return fail ? 1 : 0;
}

const [mode, arg] = process.argv.slice(2);
if (mode === 'gen') process.exitCode = gen(Number(arg) || 300);
else if (mode === 'check') process.exitCode = await check();
else { console.error('usage: node ec_check.mjs gen N | check < vectors'); process.exitCode = 2; }
