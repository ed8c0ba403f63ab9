/**
 * HPACK (RFC 7541) for the lean HTTP/2 client (http2-connection.ts): an encoder for request headers
 * that never indexes (so it keeps no dynamic table, and a request's header block can be built once and
 * reused) and a full decoder for response headers and trailers (dynamic table, Huffman strings).
 */

/** A header block that is not valid HPACK: the connection fails with COMPRESSION_ERROR. */
export class HpackError extends Error {
  override name = 'HpackError';
}

/** The static table of Appendix A; index 1 is STATIC_TABLE[0]. */
export const STATIC_TABLE: readonly (readonly [string, string])[] = [
  [':authority', ''],
  [':method', 'GET'],
  [':method', 'POST'],
  [':path', '/'],
  [':path', '/index.html'],
  [':scheme', 'http'],
  [':scheme', 'https'],
  [':status', '200'],
  [':status', '204'],
  [':status', '206'],
  [':status', '304'],
  [':status', '400'],
  [':status', '404'],
  [':status', '500'],
  ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'],
  ['accept-language', ''],
  ['accept-ranges', ''],
  ['accept', ''],
  ['access-control-allow-origin', ''],
  ['age', ''],
  ['allow', ''],
  ['authorization', ''],
  ['cache-control', ''],
  ['content-disposition', ''],
  ['content-encoding', ''],
  ['content-language', ''],
  ['content-length', ''],
  ['content-location', ''],
  ['content-range', ''],
  ['content-type', ''],
  ['cookie', ''],
  ['date', ''],
  ['etag', ''],
  ['expect', ''],
  ['expires', ''],
  ['from', ''],
  ['host', ''],
  ['if-match', ''],
  ['if-modified-since', ''],
  ['if-none-match', ''],
  ['if-range', ''],
  ['if-unmodified-since', ''],
  ['last-modified', ''],
  ['link', ''],
  ['location', ''],
  ['max-forwards', ''],
  ['proxy-authenticate', ''],
  ['proxy-authorization', ''],
  ['range', ''],
  ['referer', ''],
  ['refresh', ''],
  ['retry-after', ''],
  ['server', ''],
  ['set-cookie', ''],
  ['strict-transport-security', ''],
  ['transfer-encoding', ''],
  ['user-agent', ''],
  ['vary', ''],
  ['via', ''],
  ['www-authenticate', ''],
];

/**
 * Code lengths of the Huffman code of Appendix B, symbols 0-255 then EOS (256). The code is canonical:
 * codes are assigned in order of (length, symbol), so the lengths define it.
 */
const HUFFMAN_LENGTHS = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28,
  28, 28, 28, 28, 28, 6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7,
  8, 15, 6, 12, 10, 13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19,
  13, 14, 6, 15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13,
  28, 20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21,
  22, 23, 22, 23, 23, 24, 22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23,
  22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23, 26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,
  19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, 20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25,
  25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, 30,
];
const EOS = 256;

/** The Huffman code of each symbol (0-256), right-aligned in its length; derived once from the lengths. */
export const HUFFMAN_CODES: readonly number[] = (() => {
  const order = HUFFMAN_LENGTHS.map((_, sym) => sym).sort(
    (a, b) => HUFFMAN_LENGTHS[a]! - HUFFMAN_LENGTHS[b]! || a - b,
  );
  const codes = new Array<number>(HUFFMAN_LENGTHS.length).fill(0);
  let code = 0;
  let len = HUFFMAN_LENGTHS[order[0]!]!;
  for (const sym of order) {
    code *= 2 ** (HUFFMAN_LENGTHS[sym]! - len);
    len = HUFFMAN_LENGTHS[sym]!;
    codes[sym] = code++;
  }
  return codes;
})();

export { HUFFMAN_LENGTHS };

/**
 * The decoding tree, two Int32 children per node: a child >= 0 is an inner node, -1 - sym a leaf, and
 * 0 (the root, never a child) no code. Built by walking each code bit by bit.
 */
const TREE: Int32Array = (() => {
  const children: number[] = [0, 0];
  for (let sym = 0; sym <= EOS; sym++) {
    const len = HUFFMAN_LENGTHS[sym]!;
    const code = HUFFMAN_CODES[sym]!;
    let node = 0;
    for (let i = len - 1; i > 0; i--) {
      const slot = node * 2 + (Math.floor(code / 2 ** i) & 1);
      if (children[slot] === 0) {
        children[slot] = children.length / 2;
        children.push(0, 0);
      }
      node = children[slot]!;
    }
    children[node * 2 + (code & 1)] = -1 - sym;
  }
  return Int32Array.from(children);
})();

/** Scratch space for decoded Huffman strings (a header string is at most 8/5 of its encoded length). */
let scratch = Buffer.allocUnsafe(4096);

/** Decodes a Huffman-coded string (Section 5.2) as latin1; padding must be at most 7 one bits. */
export function huffmanDecode(src: Buffer, start: number, end: number): string {
  const need = Math.ceil(((end - start) * 8) / 5);
  if (scratch.length < need) scratch = Buffer.allocUnsafe(need);
  const out = scratch;
  let n = 0;
  let node = 0;
  // Bits read since the last symbol, and whether all of them were ones (valid padding so far).
  let pending = 0;
  let ones = true;
  for (let i = start; i < end; i++) {
    const byte = src[i]!;
    for (let bit = 7; bit >= 0; bit--) {
      const b = (byte >> bit) & 1;
      const next = TREE[node * 2 + b]!;
      pending++;
      if (b === 0) ones = false;
      if (next < 0) {
        const sym = -1 - next;
        if (sym === EOS) throw new HpackError('Huffman string contains EOS');
        out[n++] = sym;
        node = 0;
        pending = 0;
        ones = true;
      } else node = next;
    }
  }
  if (pending > 7) throw new HpackError('Huffman padding longer than 7 bits');
  if (!ones) throw new HpackError('Huffman padding is not the EOS prefix');
  return out.toString('latin1', 0, n);
}

/** Entry overhead of Section 4.1. */
const ENTRY_OVERHEAD = 32;

/** Decodes header blocks of one connection (one dynamic table, Section 2.3.2). */
export class HpackDecoder {
  /** Dynamic table entries, oldest first (dynamic index 1 is the last one). */
  readonly #entries: [string, string][] = [];
  #size = 0;
  /** The table size the decoder allows (our SETTINGS_HEADER_TABLE_SIZE). */
  readonly #maxAllowed: number;
  /** The current limit, set by the encoder's dynamic table size updates. */
  #max: number;

  constructor(maxTableSize = 4096) {
    this.#maxAllowed = maxTableSize;
    this.#max = maxTableSize;
  }

  /** The dynamic table, newest entry first (for tests and debugging). */
  get table(): [string, string][] {
    return this.#entries.slice().reverse();
  }

  /** The dynamic table's size in the sense of Section 4.1. */
  get size(): number {
    return this.#size;
  }

  /** Decodes one complete header block into name, value, name, value...; throws HpackError. */
  decode(block: Buffer): string[] {
    const out: string[] = [];
    const end = block.length;
    let pos = 0;
    let fieldSeen = false;
    while (pos < end) {
      const first = block[pos]!;
      if (first & 0x80) {
        // Indexed header field (6.1).
        pos = readInt(block, pos, 7);
        const index = intValue;
        if (index === 0) throw new HpackError('index 0');
        const entry = this.#lookup(index);
        out.push(entry[0], entry[1]);
        fieldSeen = true;
        continue;
      }
      if ((first & 0xe0) === 0x20) {
        // Dynamic table size update (6.3): only before the block's first field.
        if (fieldSeen) throw new HpackError('table size update after a header field');
        pos = readInt(block, pos, 5);
        if (intValue > this.#maxAllowed)
          throw new HpackError(`table size ${intValue} above the allowed ${this.#maxAllowed}`);
        this.#max = intValue;
        this.#evict(0);
        continue;
      }
      // Literal fields: with incremental indexing (6.2.1, 6-bit index), without (6.2.2) or never
      // indexed (6.2.3), both 4-bit.
      const indexing = (first & 0xc0) === 0x40;
      pos = readInt(block, pos, indexing ? 6 : 4);
      let name: string;
      if (intValue === 0) {
        pos = readString(block, pos);
        name = stringValue;
      } else name = this.#lookup(intValue)[0];
      pos = readString(block, pos);
      const value = stringValue;
      out.push(name, value);
      fieldSeen = true;
      if (indexing) this.#add(name, value);
    }
    return out;
  }

  #lookup(index: number): readonly [string, string] {
    if (index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1]!;
    const entries = this.#entries;
    const at = entries.length - (index - STATIC_TABLE.length);
    if (at < 0) throw new HpackError(`index ${index} out of range`);
    return entries[at]!;
  }

  /** Adds an entry (4.4): older entries are evicted to make room; one larger than the table empties it. */
  #add(name: string, value: string): void {
    const size = name.length + value.length + ENTRY_OVERHEAD;
    this.#evict(size);
    if (size > this.#max) return;
    this.#entries.push([name, value]);
    this.#size += size;
  }

  /** Evicts the oldest entries until `room` more bytes fit. */
  #evict(room: number): void {
    const entries = this.#entries;
    let drop = 0;
    while (this.#size + room > this.#max && drop < entries.length) {
      const [n, v] = entries[drop++]!;
      this.#size -= n.length + v.length + ENTRY_OVERHEAD;
    }
    if (drop > 0) entries.splice(0, drop);
  }
}

/** The last integer readInt decoded (a module slot, so decoding allocates no result objects). */
let intValue = 0;
/** The last string readString decoded. */
let stringValue = '';

/** Reads an integer with an n-bit prefix (5.1) into intValue; returns the position after it. */
function readInt(src: Buffer, pos: number, prefixBits: number): number {
  const mask = (1 << prefixBits) - 1;
  let value = src[pos++]! & mask;
  if (value === mask) {
    let shift = 0;
    let byte: number;
    do {
      if (pos >= src.length) throw new HpackError('truncated integer');
      byte = src[pos++]!;
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (value > 0x7fffffff) throw new HpackError('integer overflow');
    } while (byte & 0x80);
  }
  intValue = value;
  return pos;
}

/** Reads a string literal (5.2) into stringValue; returns the position after it. */
function readString(src: Buffer, pos: number): number {
  if (pos >= src.length) throw new HpackError('truncated string');
  const huffman = (src[pos]! & 0x80) !== 0;
  pos = readInt(src, pos, 7);
  const end = pos + intValue;
  if (end > src.length) throw new HpackError('truncated string');
  stringValue = huffman ? huffmanDecode(src, pos, end) : src.toString('latin1', pos, end);
  return end;
}

/** Static indexes by name (the first entry of a name) and by "name: value". */
const STATIC_NAME = new Map<string, number>();
const STATIC_PAIR = new Map<string, number>();
STATIC_TABLE.forEach(([name, value], i) => {
  if (!STATIC_NAME.has(name)) STATIC_NAME.set(name, i + 1);
  if (value !== '') STATIC_PAIR.set(`${name}: ${value}`, i + 1);
});

/**
 * Encodes a request's header fields (lower-case names) as one header block: a field of the static table
 * is indexed, any other is a literal without indexing (by static name index when there is one), strings
 * raw. Nothing enters the peer's dynamic table, so the block stays valid for every request.
 */
export function encodeHeaders(fields: readonly (readonly [string, string])[]): Buffer {
  const bytes: number[] = [];
  for (const [name, value] of fields) {
    const pair = STATIC_PAIR.get(`${name}: ${value}`);
    if (pair !== undefined) {
      writeInt(bytes, pair, 7, 0x80);
      continue;
    }
    const nameIndex = STATIC_NAME.get(name);
    if (nameIndex !== undefined) writeInt(bytes, nameIndex, 4, 0x00);
    else {
      bytes.push(0x00);
      writeString(bytes, name);
    }
    writeString(bytes, value);
  }
  return Buffer.from(bytes);
}

/** Writes an integer with an n-bit prefix after the high bits `flags`. */
function writeInt(out: number[], value: number, prefixBits: number, flags: number): void {
  const max = (1 << prefixBits) - 1;
  if (value < max) {
    out.push(flags | value);
    return;
  }
  out.push(flags | max);
  let rest = value - max;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
}

/** Writes a raw (not Huffman-coded) latin1 string literal. */
function writeString(out: number[], text: string): void {
  const raw = Buffer.from(text, 'latin1');
  writeInt(out, raw.length, 7, 0x00);
  for (const b of raw) out.push(b);
}
