/**
 * k6's JSON mapping of protobuf messages (protojson): what scripts pass in and what they get back.
 * Requests accept proto field names and lowerCamel JSON names, bytes as base64 strings, int64 as
 * numbers or strings, enums as names or numbers. Responses are what k6 hands to scripts: protojson
 * with EmitUnpopulated (every non-oneof field present with its default), lowerCamel names, int64 as
 * strings, enums as names, bytes as standard base64, unset messages as null.
 */
import protobuf from 'protobufjs';

type Json = unknown;
type Obj = Record<string, unknown>;

const INT64 = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);
const INT32 = new Set(['int32', 'uint32', 'sint32', 'fixed32', 'sfixed32']);

// protobufjs copies bytes fields with one shared helper that also serves plain arrays; that call site
// goes slow (about 3x a plain TypedArray.set for a 600 KB tensor). The same copy in a function of its
// own keeps V8's fast path. Same semantics: typed arrays by set(), plain arrays element by element.
const bufferWriter = (protobuf as unknown as { BufferWriter: { writeBytesBuffer: unknown } }).BufferWriter;
bufferWriter.writeBytesBuffer = (val: Uint8Array | number[], buf: Uint8Array, pos: number): void => {
  if (val instanceof Uint8Array) buf.set(val, pos);
  else for (let i = 0; i < val.length; i++) buf[pos + i] = val[i]!;
};

/** Decoded bytes of large base64 strings, so a tensor sent on every call is decoded once. */
const base64Cache = new Map<string, Buffer>();
const CACHE_MIN_CHARS = 16 * 1024;
const CACHE_ENTRIES = 16;

function decodeBase64(s: string): Buffer {
  if (s.length < CACHE_MIN_CHARS) return Buffer.from(s, 'base64');
  // Strings are immutable, so a hit is always right; the same string object compares in O(1).
  const hit = base64Cache.get(s);
  if (hit) return hit;
  const bytes = Buffer.from(s, 'base64');
  if (base64Cache.size >= CACHE_ENTRIES) base64Cache.delete(base64Cache.keys().next().value as string);
  base64Cache.set(s, bytes);
  return bytes;
}

/** protoc's lowerCamelCase JSON name of a field (or its json_name option). */
export function jsonName(field: protobuf.Field): string {
  const explicit = field.options?.['json_name'];
  if (typeof explicit === 'string') return explicit;
  return field.name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Field lookup by proto name and JSON name, per message type. */
const lookups = new WeakMap<protobuf.Type, Map<string, protobuf.Field>>();
function fieldLookup(type: protobuf.Type): Map<string, protobuf.Field> {
  let m = lookups.get(type);
  if (!m) {
    m = new Map();
    for (const f of type.fieldsArray) {
      m.set(f.name, f);
      m.set(jsonName(f), f);
    }
    lookups.set(type, m);
  }
  return m;
}

function fail(path: string, why: string): never {
  throw new Error(`unable to serialise request object to protocol buffer: ${path}: ${why}`);
}

function scalarIn(field: protobuf.Field, v: Json, path: string): unknown {
  const t = field.type;
  if (t === 'string') {
    if (typeof v !== 'string')
      fail(path, `invalid value for string field ${field.name}: ${JSON.stringify(v)}`);
    return v;
  }
  if (t === 'bool') {
    if (typeof v !== 'boolean')
      fail(path, `invalid value for bool field ${field.name}: ${JSON.stringify(v)}`);
    return v;
  }
  if (t === 'bytes') {
    if (typeof v === 'string') return decodeBase64(v);
    // Not in k6 (its JSON mapping has no binary type): binary data is taken as is, without a copy.
    if (v instanceof ArrayBuffer) return Buffer.from(v);
    if (ArrayBuffer.isView(v)) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    fail(path, `invalid value for bytes field ${field.name}: expected a base64 string`);
  }
  if (t === 'double' || t === 'float') {
    if (typeof v === 'number') return v;
    if (v === 'NaN' || v === 'Infinity' || v === '-Infinity') return Number(v);
    if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
    fail(path, `invalid value for ${t} field ${field.name}: ${JSON.stringify(v)}`);
  }
  if (INT32.has(t) || INT64.has(t)) {
    const n = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? v.trim() : v;
    if (typeof n === 'number' ? !Number.isInteger(n) : typeof n !== 'string') {
      fail(path, `invalid value for ${t} field ${field.name}: ${JSON.stringify(v)}`);
    }
    if (INT32.has(t)) return Number(n);
    // protobufjs' writer takes int64 as decimal strings (through long.js) or safe numbers.
    return n;
  }
  fail(path, `unsupported field type ${t}`);
}

function valueIn(field: protobuf.Field, v: Json, path: string): unknown {
  const rt = field.resolvedType;
  if (rt instanceof protobuf.Enum) {
    if (typeof v === 'number' && Number.isInteger(v)) return v;
    if (typeof v === 'string' && v in rt.values) return rt.values[v];
    fail(path, `invalid value for enum type: ${JSON.stringify(v)}`);
  }
  if (rt instanceof protobuf.Type) return messageIn(rt, v, path);
  return scalarIn(field, v, path);
}

/** Converts a script's JSON object to the plain object protobufjs' encoder takes (keys: proto names). */
export function messageIn(type: protobuf.Type, value: Json, path = type.name): Obj {
  const wkt = wellKnownIn(type, value);
  if (wkt !== undefined) return wkt;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    fail(path, `expected an object for message ${type.fullName.slice(1)}, got ${JSON.stringify(value)}`);
  }
  const lookup = fieldLookup(type);
  const out: Obj = {};
  for (const key of Object.keys(value)) {
    const v = (value as Obj)[key];
    const field = lookup.get(key);
    if (!field) fail(path, `unknown field "${key}"`);
    if (v === null || v === undefined) continue;
    const p = `${path}.${key}`;
    if (field.map) {
      if (typeof v !== 'object' || Array.isArray(v)) fail(p, 'expected an object for a map field');
      const m: Obj = {};
      for (const [k, mv] of Object.entries(v as Obj)) m[k] = valueIn(field, mv, `${p}.${k}`);
      out[field.name] = m;
    } else if (field.repeated) {
      if (!Array.isArray(v)) fail(p, 'expected an array for a repeated field');
      out[field.name] = v.map((item, i) => valueIn(field, item, `${p}[${i}]`));
    } else {
      out[field.name] = valueIn(field, v, p);
    }
  }
  return out;
}

/** Shortest decimal that reads back as the same float32, as Go formats float fields. */
function float32Out(v: number): number | string {
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  if (v === 0) return 0;
  for (let p = 1; p <= 9; p++) {
    const c = Number(v.toPrecision(p));
    if (Math.fround(c) === v) return c;
  }
  return v;
}

function scalarOut(field: protobuf.Field, v: unknown): Json {
  const t = field.type;
  if (INT64.has(t)) return String(v);
  if (t === 'bytes') {
    const u = v as Uint8Array;
    return Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString('base64');
  }
  if (t === 'float') return float32Out(v as number);
  if (t === 'double') {
    const n = v as number;
    return Number.isFinite(n) ? n : Number.isNaN(n) ? 'NaN' : n > 0 ? 'Infinity' : '-Infinity';
  }
  return v as Json;
}

function valueOut(field: protobuf.Field, v: unknown): Json {
  const rt = field.resolvedType;
  if (rt instanceof protobuf.Enum) return rt.valuesById[v as number] ?? v;
  if (rt instanceof protobuf.Type) return messageOut(rt, v as protobuf.Message);
  return scalarOut(field, v);
}

function defaultOut(field: protobuf.Field): Json {
  if (field.map) return {};
  if (field.repeated) return [];
  const rt = field.resolvedType;
  if (rt instanceof protobuf.Type) return null;
  if (rt instanceof protobuf.Enum) return rt.valuesById[0] ?? 0;
  switch (field.type) {
    case 'string':
    case 'bytes':
      return '';
    case 'bool':
      return false;
    default:
      return INT64.has(field.type) ? '0' : 0;
  }
}

/** Converts a decoded message to what k6 hands to scripts (protojson, EmitUnpopulated). */
export function messageOut(type: protobuf.Type, msg: protobuf.Message | Obj): Obj | Json {
  const wkt = wellKnownOut(type, msg as Obj);
  if (wkt !== undefined) return wkt;
  const out: Obj = {};
  const m = msg as Obj;
  for (const field of type.fieldsArray) {
    const present = Object.hasOwn(m, field.name) && m[field.name] !== null && m[field.name] !== undefined;
    // Oneof members (and proto3 optional fields) appear only when set, even with EmitUnpopulated.
    if (field.partOf && !present) continue;
    const v = m[field.name];
    let j: Json;
    if (!present) j = defaultOut(field);
    else if (field.map) {
      const mo: Obj = {};
      for (const [k, mv] of Object.entries(v as Obj)) mo[k] = valueOut(field, mv);
      j = mo;
    } else if (field.repeated) j = (v as unknown[]).map((item) => valueOut(field, item));
    else j = valueOut(field, v);
    out[jsonName(field)] = j;
  }
  return out;
}

const WRAPPERS = new Set([
  '.google.protobuf.DoubleValue',
  '.google.protobuf.FloatValue',
  '.google.protobuf.Int64Value',
  '.google.protobuf.UInt64Value',
  '.google.protobuf.Int32Value',
  '.google.protobuf.UInt32Value',
  '.google.protobuf.BoolValue',
  '.google.protobuf.StringValue',
  '.google.protobuf.BytesValue',
]);

/** protojson's special forms of wrappers, Timestamp and Duration (undefined for other types). */
function wellKnownIn(type: protobuf.Type, v: Json): Obj | undefined {
  const name = type.fullName;
  if (WRAPPERS.has(name)) {
    if (v !== null && typeof v === 'object' && !ArrayBuffer.isView(v)) return undefined;
    return { value: scalarIn(type.fields['value']!, v, name.slice(1)) };
  }
  if (name === '.google.protobuf.Timestamp' && typeof v === 'string') {
    const ms = Date.parse(v);
    if (Number.isNaN(ms)) fail(name.slice(1), `invalid timestamp ${JSON.stringify(v)}`);
    const frac = /\.(\d+)/.exec(v)?.[1] ?? '';
    return { seconds: String(Math.floor(ms / 1000)), nanos: Number(frac.padEnd(9, '0').slice(0, 9)) };
  }
  if (name === '.google.protobuf.Duration' && typeof v === 'string') {
    const m = /^(-?)(\d+)(?:\.(\d{1,9}))?s$/.exec(v);
    if (!m) fail(name.slice(1), `invalid duration ${JSON.stringify(v)}`);
    const sign = m[1] === '-' ? -1 : 1;
    return { seconds: `${m[1]}${m[2]}`, nanos: sign * Number((m[3] ?? '').padEnd(9, '0')) };
  }
  return undefined;
}

function wellKnownOut(type: protobuf.Type, m: Obj): Json | undefined {
  const name = type.fullName;
  if (WRAPPERS.has(name)) {
    const f = type.fields['value']!;
    return Object.hasOwn(m, 'value') ? scalarOut(f, m['value']) : defaultOut(f);
  }
  if (name === '.google.protobuf.Timestamp') {
    const s = Number(String(m['seconds'] ?? 0));
    const nanos = Number(m['nanos'] ?? 0);
    const iso = new Date(s * 1000).toISOString().replace('.000Z', '');
    const frac = nanos
      ? `.${String(nanos)
          .padStart(9, '0')
          .replace(/(000)+$/, '')}`
      : '';
    return `${iso.replace(/Z$/, '')}${frac}Z`;
  }
  if (name === '.google.protobuf.Duration') {
    const s = String(m['seconds'] ?? 0);
    const nanos = Math.abs(Number(m['nanos'] ?? 0));
    const frac = nanos
      ? `.${String(nanos)
          .padStart(9, '0')
          .replace(/(000)+$/, '')}`
      : '';
    return `${s}${frac}s`;
  }
  return undefined;
}

/** protobufjs' list of pending write operations (public fields of Writer). */
interface WriterOp {
  fn: (val: unknown, buf: Uint8Array, pos: number) => void;
  len: number;
  val: unknown;
  next: WriterOp | undefined;
}

/** Messages at least this large are encoded into reused buffers instead of fresh ones. */
const REUSE_MIN_BYTES = 64 * 1024;
const FREE_BUFFERS = 4;

/**
 * Encodes requests into buffers that are reused once their call has ended: a 600 KB tensor per call
 * otherwise costs a fresh 600 KB backing store and, above all, the garbage collections that free them.
 */
export class EncodeBuffers {
  readonly #free: Buffer[] = [];

  /** Encodes a script's JSON object; call release(bytes) when the call that sent it has ended. */
  encode(type: protobuf.Type, value: Json): Buffer {
    const writer = type.encode(messageIn(type, value)) as unknown as { len: number; head: WriterOp };
    const len = writer.len;
    if (len < REUSE_MIN_BYTES) return (writer as unknown as protobuf.Writer).finish() as Buffer;
    const i = this.#free.findIndex((b) => b.length >= len);
    const backing = i >= 0 ? this.#free.splice(i, 1)[0]! : Buffer.allocUnsafeSlow(len);
    const out = backing.subarray(0, len);
    // protobufjs' Writer.finish(), writing into `out` instead of a new buffer.
    let pos = 0;
    for (let op = writer.head.next; op; op = op.next) {
      op.fn(op.val, out, pos);
      pos += op.len;
    }
    return out;
  }

  /** Returns a buffer from encode() for reuse; small ones (not pooled) are ignored. */
  release(bytes: Buffer): void {
    if (bytes.length < REUSE_MIN_BYTES || this.#free.length >= FREE_BUFFERS) return;
    this.#free.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.buffer.byteLength - bytes.byteOffset));
  }
}

/** Whether a value and everything it holds is frozen (checked once per object, when it is cached). */
function deeplyFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (!Object.isFrozen(value)) return false;
  return Object.values(value).every(deeplyFrozen);
}

const encodedOnce = new WeakMap<object, { type: protobuf.Type; bytes: Buffer }>();

/**
 * The encoding of a request message the script froze (deeply), made once and shared by every call
 * that sends it: a frozen object cannot change, so a message prepared in the init context (lib/kserve
 * freezes its ModelInfer requests) costs one encoding, not one per request. Undefined for other
 * messages, which are encoded per call. Callers must not release the returned buffer.
 */
export function encodedFrozen(type: protobuf.Type, value: unknown): Buffer | undefined {
  if (value === null || typeof value !== 'object' || !Object.isFrozen(value)) return undefined;
  const hit = encodedOnce.get(value);
  if (hit?.type === type) return hit.bytes;
  if (!deeplyFrozen(value)) return undefined;
  const bytes = Buffer.from(type.encode(messageIn(type, value as Json)).finish());
  encodedOnce.set(value, { type, bytes });
  return bytes;
}
