/**
 * Deterministic outputs of the simulated backend, so a client can check answers:
 *   h(item)      = FNV-1a (32-bit) over the item's bytes of every input, in the request's input order, read as
 *                  little-endian 32-bit words (a last partial word zero-padded); BYTES inputs hash whole.
 *   value(h, j)  = fmix32(h + (j + 1) * 0x9E3779B9) for element j of the item's output, then
 *                  floats: value / 2^32 in [0, 1); integers: value % 100; BOOL: value & 1; BYTES: hex string.
 */
import type { Datatype } from '@k6-triton/lib/tensor/datatypes.ts';
import { float32ToBf16 } from '@k6-triton/lib/tensor/bf16.ts';
import { encodeBytesTensor } from '@k6-triton/lib/tensor/bytes.ts';
import { DATATYPE_BYTES } from '@k6-triton/lib/tensor/datatypes.ts';
import { float32ToFp16 } from '@k6-triton/lib/tensor/fp16.ts';

/** MurmurHash3's 32-bit finaliser. */
export function fmix32(x: number): number {
  let h = x | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Continues an FNV-1a hash over `bytes` as little-endian 32-bit words (a last partial word zero-padded). */
function hashWords(h: number, bytes: Uint8Array): number {
  const words = bytes.length >>> 2;
  if ((bytes.byteOffset & 3) === 0) {
    const u32 = new Uint32Array(bytes.buffer, bytes.byteOffset, words);
    for (let i = 0; i < words; i++) h = Math.imul(h ^ u32[i]!, FNV_PRIME);
  } else {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    for (let i = 0; i < words; i++) h = Math.imul(h ^ view.getUint32(i * 4, true), FNV_PRIME);
  }
  const rest = bytes.length & 3;
  if (rest > 0) {
    let w = 0;
    for (let k = 0; k < rest; k++) w |= bytes[words * 4 + k]! << (8 * k);
    h = Math.imul(h ^ w, FNV_PRIME);
  }
  return h;
}

/** FNV-1a over 32-bit little-endian words of `parts`, in order (one batch item). */
export function hashItem(parts: readonly Uint8Array[]): number {
  let h = FNV_OFFSET;
  for (const bytes of parts) h = hashWords(h, bytes);
  return h >>> 0;
}

/**
 * hashItem of every batch item at once: item i of each fixed-size input is its i-th 1/batch of the bytes; BYTES
 * inputs (`whole`) hash entirely for every item. Same results as hashItem per item, without per-item views.
 */
export function hashBatch(
  inputs: readonly { data: Uint8Array; whole: boolean }[],
  batch: number,
): Uint32Array {
  // Int32 arithmetic throughout (Math.imul's domain) keeps the hot loop free of number conversions.
  const hashes = new Int32Array(batch).fill(FNV_OFFSET | 0);
  for (const input of inputs) {
    let bytes = input.data;
    if (input.whole || batch === 1) {
      for (let i = 0; i < batch; i++) hashes[i] = hashWords(hashes[i]!, bytes);
      continue;
    }
    const per = bytes.length / batch;
    if (per % 4 !== 0) {
      for (let i = 0; i < batch; i++)
        hashes[i] = hashWords(hashes[i]!, bytes.subarray(i * per, (i + 1) * per));
      continue;
    }
    // Word-aligned items: one typed view over the whole tensor (copied once if the tensor itself is misaligned).
    // (new Uint8Array copies; Buffer#slice would not: request tensors are often Buffer views into the body.)
    if ((bytes.byteOffset & 3) !== 0) bytes = new Uint8Array(bytes);
    const words = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2);
    const wordsPerItem = per >>> 2;
    let k = 0;
    for (let i = 0; i < batch; i++) {
      let h = hashes[i]!;
      for (const end = k + wordsPerItem; k < end; k++) h = Math.imul(h ^ words[k]!, FNV_PRIME);
      hashes[i] = h;
    }
  }
  return new Uint32Array(hashes.buffer);
}

/** The raw 32-bit value of element `index` of an item whose hash is `hash`. */
export function elementValue(hash: number, index: number): number {
  return fmix32((hash + Math.imul(index + 1, 0x9e3779b9)) | 0);
}

/** The element as the datatype carries it (number, or hex string for BYTES). */
export function typedElement(datatype: Datatype, value: number): number | string {
  switch (datatype) {
    case 'FP16':
    case 'BF16':
    case 'FP32':
    case 'FP64':
      return value / 4294967296;
    case 'BOOL':
      return value & 1;
    case 'BYTES':
      return value.toString(16);
    default:
      return value % 100;
  }
}

/** Fills `count` items × `perItem` elements of an output; item i uses hashes[i]. */
export function fillOutput(datatype: Datatype, hashes: ArrayLike<number>, perItem: number): Uint8Array {
  const total = hashes.length * perItem;
  if (datatype === 'BYTES') {
    const values: string[] = new Array(total);
    for (let i = 0; i < hashes.length; i++) {
      for (let j = 0; j < perItem; j++) values[i * perItem + j] = elementValue(hashes[i]!, j).toString(16);
    }
    return encodeBytesTensor(values);
  }
  const out = new Uint8Array(total * DATATYPE_BYTES[datatype]);
  const put = writer(datatype, out);
  for (let i = 0; i < hashes.length; i++) {
    const h = hashes[i]!;
    for (let j = 0; j < perItem; j++)
      put(i * perItem + j, typedElement(datatype, elementValue(h, j)) as number);
  }
  return out;
}

function writer(datatype: Datatype, out: Uint8Array): (i: number, v: number) => void {
  const buf = out.buffer;
  switch (datatype) {
    case 'FP32': {
      const a = new Float32Array(buf);
      return (i, v) => {
        a[i] = v;
      };
    }
    case 'FP64': {
      const a = new Float64Array(buf);
      return (i, v) => {
        a[i] = v;
      };
    }
    case 'FP16': {
      const a = new Uint16Array(buf);
      return (i, v) => {
        a[i] = float32ToFp16(v);
      };
    }
    case 'BF16': {
      const a = new Uint16Array(buf);
      return (i, v) => {
        a[i] = float32ToBf16(v);
      };
    }
    case 'INT64':
    case 'UINT64': {
      const a = new BigInt64Array(buf);
      return (i, v) => {
        a[i] = BigInt(v);
      };
    }
    default: {
      const view = new DataView(buf);
      const size = DATATYPE_BYTES[datatype];
      return (i, v) => {
        if (size === 1) view.setUint8(i, v);
        else if (size === 2) view.setUint16(i * 2, v, true);
        else view.setUint32(i * 4, v, true);
      };
    }
  }
}
