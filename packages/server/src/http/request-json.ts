/**
 * An HTTP request's JSON as Triton's HTTP frontend reads it: rapidjson with NaN and Infinity allowed, a NUL
 * byte ending the text. JSON.parse reads the body first (the fast path); a body it refuses, or one it reads
 * where rapidjson may not, is read again here, byte by byte as rapidjson reads it, which accepts NaN, Inf,
 * Infinity and NUL-ended text, and refuses the rest with rapidjson's words and byte offset. That reading also
 * keeps what JSON.parse loses: a whole number written as a double (5.0, 1e3), which rapidjson, and so Triton,
 * does not read as an integer.
 */
import { Errors } from '../errors.ts';
import { checkJsonBounds } from '../json-bounds.ts';

/** rapidjson's messages (GetParseError_En). */
const MESSAGE = {
  empty: 'The document is empty.',
  notSingular: 'The document root must not be followed by other values.',
  invalid: 'Invalid value.',
  missName: 'Missing a name for object member.',
  missColon: 'Missing a colon after a name of object member.',
  missCommaOrCurly: "Missing a comma or '}' after an object member.",
  missCommaOrSquare: "Missing a comma or ']' after an array element.",
  badHex: 'Incorrect hex digit after \\u escape in string.',
  badSurrogate: 'The surrogate pair in string is invalid.',
  badEscape: 'Invalid escape character in string.',
  missQuote: 'Missing a closing quotation mark in string.',
  badEncoding: 'Invalid encoding in string.',
  tooBig: 'Number too big to be stored in double.',
  missFraction: 'Miss fraction part in number.',
  missExponent: 'Miss exponent in number.',
} as const;

/** A \u escape of a UTF-16 surrogate: rapidjson refuses one without its pair, JSON.parse reads it. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** A number literal with a fraction or an exponent and a whole value (5.0, 1e3, 2.5e1). */
const WHOLE_DOUBLE = /\d\.0+(?![0-9])|\d[eE]/;

/** A whole number written as a double: rapidjson reads it as a double, never as an integer. */
export class WholeDouble {
  constructor(readonly value: number) {}
}

/**
 * Parses `bytes` as a request's JSON, its depth and size bounded first (json-bounds.ts); throws Triton's 500 with rapidjson's words when it is not JSON. Where
 * `readsIntegers` says the parsed request reads integers that matter (integer tensor data), and the text has a
 * whole number written as a double, it is read again so that such numbers come back as WholeDouble; the byte
 * by byte reading always gives them so.
 */
export function parseRequestJson(
  bytes: Buffer,
  readsIntegers: (value: unknown) => boolean = () => false,
): unknown {
  checkJsonBounds(bytes);
  const text = bytes.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return new Reader(bytes).document();
  }
  // Read again where rapidjson may refuse what JSON.parse read: a number past double range (JSON.parse made it
  // ±Infinity) or an unpaired surrogate escape. Cheap checks first: a regular expression over a large body costs
  // more than walking what JSON.parse made.
  const again =
    (text.includes('\\u') && SURROGATE_ESCAPE.test(text)) ||
    hasInfinity(value) ||
    (readsIntegers(value) && WHOLE_DOUBLE.test(text));
  return again ? new Reader(bytes).document() : value;
}

/** Whether JSON.parse's value holds ±Infinity, which no valid JSON spells: an overflowing number. */
function hasInfinity(value: unknown): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'number') {
      if (v === Infinity || v === -Infinity) return true;
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
    } else if (v !== null && typeof v === 'object') {
      for (const k in v) stack.push((v as Record<string, unknown>)[k]);
    }
  }
  return false;
}

const SIMPLE_ESCAPES: Readonly<Record<number, number>> = {
  34: 0x22,
  92: 0x5c,
  47: 0x2f,
  98: 0x08,
  102: 0x0c,
  110: 0x0a,
  114: 0x0d,
  116: 0x09,
};

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/**
 * rapidjson's reader over bytes. Arrays and objects are read with a stack of their own rather than the call
 * stack, so a body nested 100,000 deep (which Triton reads) is read too, not a RangeError.
 */
class Reader {
  readonly #bytes: Buffer;
  #pos = 0;

  constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }

  document(): unknown {
    this.#skipSpace();
    if (this.#peek() === 0) this.#fail(MESSAGE.empty, this.#pos);
    const value = this.#value();
    this.#skipSpace();
    if (this.#peek() !== 0) this.#fail(MESSAGE.notSingular, this.#pos);
    return value;
  }

  #fail(message: string, offset: number): never {
    throw Errors.jsonSyntax(message, offset);
  }

  /** The next byte; 0 at the end, as rapidjson's stream reads it. */
  #peek(): number {
    return this.#pos < this.#bytes.length ? this.#bytes[this.#pos]! : 0;
  }

  #consume(c: number): boolean {
    if (this.#peek() !== c) return false;
    this.#pos += 1;
    return true;
  }

  #skipSpace(): void {
    for (let c = this.#peek(); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = this.#peek()) {
      this.#pos += 1;
    }
  }

  #value(): unknown {
    // The arrays and objects being read, innermost last; `key` names the member whose value is read next.
    const open: ({ array: unknown[] } | { object: Record<string, unknown>; key: string })[] = [];
    for (;;) {
      let value: unknown;
      const c = this.#peek();
      if (c === 0x5b || c === 0x7b) {
        this.#pos += 1;
        this.#skipSpace();
        if (c === 0x5b && !this.#consume(0x5d)) {
          open.push({ array: [] });
          continue;
        }
        if (c === 0x7b && !this.#consume(0x7d)) {
          open.push({ object: {}, key: this.#memberName() });
          continue;
        }
        value = c === 0x5b ? [] : {};
      } else {
        value = this.#scalar();
      }
      // The value ends the containers it closes; a comma leaves the reader at the next one.
      for (;;) {
        const top = open.at(-1);
        if (!top) return value;
        this.#skipSpace();
        if ('array' in top) {
          top.array.push(value);
          if (this.#consume(0x2c)) {
            this.#skipSpace();
            break;
          }
          if (!this.#consume(0x5d)) this.#fail(MESSAGE.missCommaOrSquare, this.#pos);
          value = top.array;
        } else {
          // rapidjson keeps repeated names; Triton's lookups find the first.
          if (!Object.hasOwn(top.object, top.key)) top.object[top.key] = value;
          if (this.#consume(0x2c)) {
            this.#skipSpace();
            top.key = this.#memberName();
            break;
          }
          if (!this.#consume(0x7d)) this.#fail(MESSAGE.missCommaOrCurly, this.#pos);
          value = top.object;
        }
        open.pop();
      }
    }
  }

  /** A value that is neither array nor object. */
  #scalar(): unknown {
    switch (this.#peek()) {
      case 0x6e: // n
        return this.#literal('null', null);
      case 0x74: // t
        return this.#literal('true', true);
      case 0x66: // f
        return this.#literal('false', false);
      case 0x22: // "
        return this.#string();
      default:
        return this.#number();
    }
  }

  /** An object member's name and its colon, leaving the reader at the member's value. */
  #memberName(): string {
    if (this.#peek() !== 0x22) this.#fail(MESSAGE.missName, this.#pos);
    const key = this.#string();
    this.#skipSpace();
    if (!this.#consume(0x3a)) this.#fail(MESSAGE.missColon, this.#pos);
    this.#skipSpace();
    return key;
  }

  #literal(word: string, value: unknown): unknown {
    this.#pos += 1;
    for (let i = 1; i < word.length; i++) {
      if (!this.#consume(word.charCodeAt(i))) this.#fail(MESSAGE.invalid, this.#pos);
    }
    return value;
  }

  #string(): string {
    this.#pos += 1;
    const out: number[] = [];
    for (;;) {
      const c = this.#peek();
      if (c === 0x5c) {
        const escapeAt = this.#pos;
        this.#pos += 1;
        const e = this.#peek();
        const simple = SIMPLE_ESCAPES[e];
        if (simple !== undefined) {
          this.#pos += 1;
          out.push(simple);
        } else if (e === 0x75) {
          this.#pos += 1;
          let code = this.#hex4(escapeAt);
          if (code >= 0xd800 && code <= 0xdfff) {
            if (code > 0xdbff || !this.#consume(0x5c) || !this.#consume(0x75)) {
              this.#fail(MESSAGE.badSurrogate, escapeAt);
            }
            const low = this.#hex4(escapeAt);
            if (low < 0xdc00 || low > 0xdfff) this.#fail(MESSAGE.badSurrogate, escapeAt);
            code = ((code - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
          }
          for (const b of Buffer.from(String.fromCodePoint(code), 'utf8')) out.push(b);
        } else this.#fail(MESSAGE.badEscape, escapeAt);
      } else if (c === 0x22) {
        this.#pos += 1;
        return Buffer.from(out).toString('utf8');
      } else if (c < 0x20) {
        this.#fail(c === 0 ? MESSAGE.missQuote : MESSAGE.badEncoding, this.#pos);
      } else {
        out.push(c);
        this.#pos += 1;
      }
    }
  }

  #hex4(escapeAt: number): number {
    let code = 0;
    for (let i = 0; i < 4; i++) {
      const c = this.#peek();
      const digit = isDigit(c)
        ? c - 0x30
        : c >= 0x41 && c <= 0x46
          ? c - 55
          : c >= 0x61 && c <= 0x66
            ? c - 87
            : -1;
      if (digit < 0) this.#fail(MESSAGE.badHex, escapeAt);
      code = code * 16 + digit;
      this.#pos += 1;
    }
    return code;
  }

  #number(): number | WholeDouble {
    const start = this.#pos;
    let double = false;
    const minus = this.#consume(0x2d);
    const c = this.#peek();
    if (c === 0x30) this.#pos += 1;
    else if (c >= 0x31 && c <= 0x39) this.#digits();
    else if (c === 0x4e) {
      // NaN (a minus sign before it is read and dropped, as rapidjson does)
      this.#pos += 1;
      if (!(this.#consume(0x61) && this.#consume(0x4e))) this.#fail(MESSAGE.invalid, this.#pos);
      return Number.NaN;
    } else if (c === 0x49) {
      // Inf or Infinity
      this.#pos += 1;
      if (!(this.#consume(0x6e) && this.#consume(0x66))) this.#fail(MESSAGE.invalid, this.#pos);
      if (this.#peek() === 0x69) {
        for (const b of [0x69, 0x6e, 0x69, 0x74, 0x79]) {
          if (!this.#consume(b)) this.#fail(MESSAGE.invalid, this.#pos);
        }
      }
      return minus ? -Infinity : Infinity;
    } else this.#fail(MESSAGE.invalid, this.#pos);
    if (this.#consume(0x2e)) {
      if (!isDigit(this.#peek())) this.#fail(MESSAGE.missFraction, this.#pos);
      this.#digits();
      double = true;
    }
    if (this.#consume(0x65) || this.#consume(0x45)) {
      if (!this.#consume(0x2b)) this.#consume(0x2d);
      if (!isDigit(this.#peek())) this.#fail(MESSAGE.missExponent, this.#pos);
      this.#digits();
      double = true;
    }
    const value = Number(this.#bytes.toString('latin1', start, this.#pos));
    if (!Number.isFinite(value)) this.#fail(MESSAGE.tooBig, start);
    return double && Number.isInteger(value) ? new WholeDouble(value) : value;
  }

  #digits(): void {
    while (isDigit(this.#peek())) this.#pos += 1;
  }
}
