// Writes a damaged copy of an iden3 binary file (.r1cs / .wtns) for the reader's rejection tests.
// usage: node iden3_patch.mjs IN OUT OP [ARGS]
//        node iden3_patch.mjs IN --batch < SPEC   (one "OUT OP [ARGS]" per line: one node start for all)
//   truncate N            keep the first N bytes
//   xor OFFSET BYTE       xor one byte (hex BYTE)
//   section-size TYPE D   add D to the u64 size field of the section of that type
//   first-wire VALUE      set the wire id of the first term of the constraint section
//   first-coef HEX64      set the first coefficient (64 hex digits, little-endian bytes as written)
//   wtns-flip I           flip bit 0 of witness value I
//   info                  print "type offset size" per section (OUT ignored)
import { readFileSync, writeFileSync } from 'node:fs';

const [, , inPath, outArg, ...rest] = process.argv;
const original = readFileSync(inPath);
let buf;

function sections() {
  const n = buf.readUInt32LE(8);
  const out = [];
  let pos = 12;
  for (let i = 0; i < n; i++) {
    const type = buf.readUInt32LE(pos);
    const size = Number(buf.readBigUInt64LE(pos + 4));
    out.push({ type, header: pos, offset: pos + 12, size });
    pos += 12 + size;
  }
  return out;
}
const section = (t) => {
  const s = sections().find((x) => x.type === t);
  if (!s) throw new Error(`no section ${t} in ${inPath}`);
  return s;
};
// Offset of the first term of the constraint section (skips empty linear combinations).
function firstTerm() {
  let pos = section(2).offset;
  for (let lc = 0; lc < 3; lc++) {
    const n = buf.readUInt32LE(pos);
    if (n > 0) return pos + 4;
    pos += 4;
  }
  throw new Error('constraint 0 has no terms');
}

function apply(outPath, op, args) {
  buf = Buffer.from(original);
  let out = buf;
  switch (op) {
    case 'truncate': out = buf.subarray(0, Number(args[0])); break;
    case 'xor': buf[Number(args[0])] ^= parseInt(args[1], 16); break;
    case 'section-size': {
      const s = section(Number(args[0]));
      buf.writeBigUInt64LE(BigInt(s.size + Number(args[1])), s.header + 4);
      break;
    }
    case 'first-wire': buf.writeUInt32LE(Number(args[0]), firstTerm()); break;
    case 'first-coef': Buffer.from(args[0], 'hex').copy(buf, firstTerm() + 4); break;
    case 'wtns-flip': buf[section(2).offset + 32 * Number(args[0])] ^= 1; break;
    case 'info':
      for (const s of sections()) console.log(s.type, s.offset, s.size);
      return;
    default: throw new Error(`unknown op ${op}`);
  }
  writeFileSync(outPath, out);
}

if (outArg === '--batch') {
  for (const line of readFileSync(0, 'utf8').split('\n')) {
    const [o, op, ...args] = line.trim().split(/\s+/);
    if (o) apply(o, op, args);
  }
} else {
  apply(outArg, rest[0], rest.slice(1));
}
