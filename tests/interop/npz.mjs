// NumPy .npy arrays in .npz archives, as the ONNX test writes its inputs
// and reads `webnnmctl predict --output FILE.npz` (and the shipped
// datasets) back: stored or deflated zip entries; float16 (read as
// float32), float32, float64, int32, int64 (read as numbers), uint8 and
// Unicode arrays (names only).
import { inflateRawSync } from "node:zlib";

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const DESCR = { float32: "<f4", int32: "<i4", int64: "<i8", uint8: "|u1" };

// One array as .npy bytes: `data` a typed array, `shape` its dimensions.
export function npy(data, shape, type) {
  let header = `{'descr': '${DESCR[type]}', 'fortran_order': False, 'shape': (${shape.join(", ")}${shape.length === 1 ? "," : ""}), }`;
  const unpadded = 10 + header.length + 1;
  header += " ".repeat((64 - (unpadded % 64)) % 64) + "\n";
  const head = Buffer.alloc(10);
  head.write("\x93NUMPY", 0, "latin1");
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  return Buffer.concat([head, Buffer.from(header, "latin1"), Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
}

// An archive of stored entries: `arrays` maps a name to {data, shape, type}.
export function npz(arrays) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const [name, a] of Object.entries(arrays)) {
    const body = npy(a.data, a.shape, a.type);
    const fileName = Buffer.from(`${name}.npy`);
    const crc = crc32(body);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(body.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(body.length, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, body);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(arrays).length, 8);
  end.writeUInt16LE(Object.keys(arrays).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1, exponent = (h >> 10) & 0x1f, fraction = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

function parseNpy(bytes) {
  const length = bytes.readUInt16LE(8);
  const header = bytes.subarray(10, 10 + length).toString("latin1");
  const descr = header.match(/'descr':\s*'([^']+)'/)[1];
  const shape = header.match(/'shape':\s*\(([^)]*)\)/)[1].split(",").map((s) => s.trim()).filter((s) => s).map(Number);
  const body = bytes.subarray(10 + length);
  const copy = (T) => new T(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength));
  const types = { "<f4": Float32Array, "<f8": Float64Array, "<i4": Int32Array, "<i8": BigInt64Array, "|u1": Uint8Array };
  if (descr.startsWith("<U")) return { shape, descr, data: null };
  if (descr === "<f2") return { shape, descr, data: Float32Array.from(copy(Uint16Array), halfToFloat) };
  const T = types[descr];
  if (!T) throw new Error(`npz: unsupported descr ${descr}`);
  let data = copy(T);
  if (T === BigInt64Array) data = Float64Array.from(data, Number);
  return { shape, descr, data };
}

// Every array of an archive, by name (without .npy).
export function readNpz(buffer) {
  const arrays = {};
  let at = 0;
  while (at + 30 <= buffer.length && buffer.readUInt32LE(at) === 0x04034b50) {
    const method = buffer.readUInt16LE(at + 8);
    const flags = buffer.readUInt16LE(at + 6);
    let size = buffer.readUInt32LE(at + 18);
    const nameLength = buffer.readUInt16LE(at + 26);
    const extraLength = buffer.readUInt16LE(at + 28);
    const name = buffer.subarray(at + 30, at + 30 + nameLength).toString();
    const start = at + 30 + nameLength + extraLength;
    if (flags & 8) {
      // Sizes after the data: take them from the central directory.
      size = centralSize(buffer, name);
    }
    const raw = buffer.subarray(start, start + size);
    const body = method === 8 ? inflateRawSync(raw) : raw;
    arrays[name.replace(/\.npy$/, "")] = parseNpy(body);
    at = start + size + (flags & 8 ? (buffer.readUInt32LE(start + size) === 0x08074b50 ? 16 : 12) : 0);
  }
  return arrays;
}

function centralSize(buffer, name) {
  const end = buffer.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let at = buffer.readUInt32LE(end + 16);
  while (buffer.readUInt32LE(at) === 0x02014b50) {
    const nameLength = buffer.readUInt16LE(at + 28);
    const entry = buffer.subarray(at + 46, at + 46 + nameLength).toString();
    if (entry === name) return buffer.readUInt32LE(at + 20);
    at += 46 + nameLength + buffer.readUInt16LE(at + 30) + buffer.readUInt16LE(at + 32);
  }
  throw new Error(`npz: ${name} is not in the central directory`);
}
