/**
 * Execution segments as k6 defines them (lib/execution_segment.go): a segment `from:to` of (0, 1]
 * within a sequence of segments that cover it, and the "execution tuple" that splits integers
 * (VUs, iterations) and iteration indexes among the sequence's segments by k6's striping rule, so
 * that N runners with the segments of one sequence together run exactly the unsegmented test.
 */

/** An exact rational number (k6 uses big.Rat: 1/3 must stay 1/3). */
export interface Rat {
  num: bigint;
  den: bigint;
}

const gcd = (a: bigint, b: bigint): bigint => {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
};

/** A rational in lowest terms with a positive denominator. */
export function rat(num: bigint, den: bigint = 1n): Rat {
  const g = gcd(num, den) || 1n;
  const s = den < 0n ? -1n : 1n;
  return { num: (s * num) / g, den: (s * den) / g };
}

const cmp = (a: Rat, b: Rat): number => {
  const d = a.num * b.den - b.num * a.den;
  return d < 0n ? -1 : d > 0n ? 1 : 0;
};
const sub = (a: Rat, b: Rat): Rat => rat(a.num * b.den - b.num * a.den, a.den * b.den);
const ZERO = rat(0n);
const ONE = rat(1n);

/** Go's big.Rat RatString: "1/3", or "2" when the denominator is 1. */
export const ratString = (r: Rat): string => (r.den === 1n ? `${r.num}` : `${r.num}/${r.den}`);

/** Go's big.Rat FloatString(2): rounded half away from zero, as k6's error messages print bounds. */
function floatString2(r: Rat): string {
  const neg = r.num < 0n;
  const n = neg ? -r.num : r.num;
  const scaled = (n * 100n * 2n + r.den) / (2n * r.den);
  const s = `${scaled / 100n}.${(scaled % 100n).toString().padStart(2, '0')}`;
  return neg && scaled !== 0n ? `-${s}` : s;
}

/** Parses what Go's big.Rat SetString accepts that matters here: integers, fractions and decimals. */
function parseRat(s: string): Rat | null {
  const frac = /^([+-]?\d+)\/([+-]?\d+)$/.exec(s);
  if (frac) {
    const den = BigInt(frac[2]!);
    return den === 0n ? null : rat(BigInt(frac[1]!), den);
  }
  const dec = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (!dec || (dec[2] === '' && (dec[3] ?? '') === '')) return null;
  const digits = BigInt(`${dec[2] || '0'}${dec[3] ?? ''}`);
  const exp = BigInt(dec[4] ?? '0') - BigInt((dec[3] ?? '').length);
  const sign = dec[1] === '-' ? -1n : 1n;
  return exp >= 0n ? rat(sign * digits * 10n ** exp) : rat(sign * digits, 10n ** -exp);
}

/** k6's stringToRat: a percentage ("50%"), a decimal ("0.5") or a fraction ("1/2"). */
export function stringToRat(s: string): Rat {
  if (s.endsWith('%')) {
    const body = s.slice(0, -1);
    if (!/^[+-]?\d+$/.test(body)) throw new Error(`'${s}' is not a valid percentage`);
    return rat(BigInt(body), 100n);
  }
  const r = parseRat(s);
  if (!r) throw new Error(`'${s}' is not a valid percentage, decimal, fraction or interval value`);
  return r;
}

/** One execution segment (from, to]. */
export interface Segment {
  from: Rat;
  to: Rat;
}

/** k6's segment string, "1/3:2/3". */
export const segmentString = (s: Segment): string => `${ratString(s.from)}:${ratString(s.to)}`;

/** Validates bounds with k6's wording (NewExecutionSegment). */
export function newSegment(from: Rat, to: Rat): Segment {
  if (cmp(from, ZERO) < 0)
    throw new Error(`segment start value must be at least 0 but was ${floatString2(from)}`);
  if (cmp(from, to) >= 0)
    throw new Error(`segment start(${floatString2(from)}) must be less than its end(${floatString2(to)})`);
  if (cmp(to, ONE) > 0) throw new Error(`segment end value can't be more than 1 but was ${floatString2(to)}`);
  return { from, to };
}

/** Parses `--execution-segment`: "a:b", or "b" meaning "0:b"; "" is the whole test. */
export function parseSegment(text: string): Segment {
  const s = text === '' ? '1' : text;
  const colon = s.indexOf(':');
  if (colon < 0) return newSegment(ZERO, stringToRat(s));
  return newSegment(stringToRat(s.slice(0, colon)), stringToRat(s.slice(colon + 1)));
}

/** Parses `--execution-segment-sequence`: "r1,r2,...,rn" is (r1,r2], (r2,r3], ...; "" is none. */
export function parseSequence(text: string): Segment[] {
  if (text === '') return [];
  const points = text.split(',');
  if (points.length < 2)
    throw new Error(`at least 2 points are needed for an execution segment sequence, ${points.length} given`);
  const rats = points.map(stringToRat);
  return rats.slice(1).map((to, i) => newSegment(rats[i]!, to));
}

/** The sequence string k6 prints, "0,1/3,2/3,1". */
export const sequenceString = (seq: readonly Segment[]): string =>
  seq.length === 0 ? '' : [seq[0]!.from, ...seq.map((s) => s.to)].map(ratString).join(',');

/**
 * A full sequence with its striping: within every block of `lcd` consecutive indexes, segment i owns
 * the indexes `owned[i]` (sorted), proportional to its length and spread out as k6 spreads them.
 */
class StripedSequence {
  readonly lcd: number;
  readonly owned: number[][];

  constructor(readonly segments: readonly Segment[]) {
    const lengths = segments.map((s) => sub(s.to, s.from));
    let lcd = 1n;
    for (const l of lengths) lcd = (lcd * l.den) / gcd(lcd, l.den);
    this.lcd = Number(lcd);
    // Largest segments choose first (a stable sort, as k6's), since they are the hardest to spread.
    const order = lengths
      .map((l, i) => ({ norm: Number(l.num * (lcd / l.den)), i }))
      .sort((a, b) => b.norm - a.norm);
    this.owned = segments.map(() => []);
    const chosen = order.map(() => 0);
    for (let k = 0; k < this.lcd; k++) {
      // Index k goes to the first segment (largest first) whose next due index, chosen*lcd/norm, is <= k.
      for (let j = 0; j < order.length; j++) {
        if (chosen[j]! * this.lcd <= k * order[j]!.norm) {
          chosen[j]!++;
          this.owned[order[j]!.i]!.push(k);
          break;
        }
      }
    }
  }

  /** k6's ScaleInt64: segment i's share of `value`, the count of its indexes below `value`. */
  scale(i: number, value: number): number {
    const own = this.owned[i]!;
    const rest = value % this.lcd;
    let n = Math.floor(value / this.lcd) * own.length;
    for (const k of own) if (k < rest) n++;
    return n;
  }
}

/** One segment within its (filled) sequence: k6's ExecutionTuple. */
export class ExecutionTuple {
  readonly #seq: StripedSequence;
  readonly #index: number;
  readonly #owned: Set<number>;

  private constructor(seq: StripedSequence, index: number) {
    this.#seq = seq;
    this.#index = index;
    this.#owned = new Set(seq.owned[index]);
  }

  /** k6's NewExecutionTuple: fills the sequence to (0, 1] around the segment and finds it there. */
  static of(segment: Segment | null, sequence: readonly Segment[]): ExecutionTuple {
    const whole: Segment = { from: ZERO, to: ONE };
    const seg = segment ?? whole;
    const same = (s: Segment) => cmp(s.from, seg.from) === 0 && cmp(s.to, seg.to) === 0;
    // k6 validates against the sequence as given, before filling it (lib/options.go Validate).
    if (sequence.length > 0 && !sequence.some(same))
      throw new Error(
        `provided segment ${segmentString(seg)} can't be found in sequence ${sequenceString(sequence)}`,
      );
    let filled: Segment[] = sequence.length > 0 ? [...sequence] : [seg];
    if (cmp(filled[0]!.from, ZERO) !== 0) filled = [{ from: ZERO, to: filled[0]!.from }, ...filled];
    const last = filled[filled.length - 1]!;
    if (cmp(last.to, ONE) !== 0) filled = [...filled, { from: last.to, to: ONE }];
    return new ExecutionTuple(new StripedSequence(filled), filled.findIndex(same));
  }

  /** Whether the test is split at all (one segment (0, 1] is the whole test). */
  get segmented(): boolean {
    return this.#seq.segments.length > 1;
  }

  /** This segment's share of an integer (VUs, iterations), as k6's ScaleInt64. */
  scale(value: number): number {
    return this.segmented ? this.#seq.scale(this.#index, value) : value;
  }

  /** Whether global index `k` (an arrival-rate iteration, a VU number) belongs to this segment. */
  owns(k: number): boolean {
    return !this.segmented || this.#owned.has(k % this.#seq.lcd);
  }

  /**
   * k6's SegmentedIndex: the global 0-based index of this segment's `k`-th (0-based) own index, so the
   * segments' local counters (VU ids, iteration numbers) map onto disjoint global ones.
   */
  globalIndex(k: number): number {
    if (!this.segmented) return k;
    const own = this.#seq.owned[this.#index]!;
    return Math.floor(k / own.length) * this.#seq.lcd + own[k % own.length]!;
  }

  /**
   * k6's GetNewExecutionTupleFromValue: the sequence re-cut so that each segment's length is its
   * share of `value` (segments with no share dropped); null when this segment gets none.
   */
  resegment(value: number): ExecutionTuple | null {
    if (value < 1) return null;
    if (value % this.#seq.lcd === 0) return this;
    const segs: Segment[] = [];
    let prev = 0;
    let index = -1;
    this.#seq.segments.forEach((_, i) => {
      const share = this.#seq.scale(i, value);
      if (share === 0) return;
      if (i === this.#index) index = segs.length;
      segs.push({ from: rat(BigInt(prev), BigInt(value)), to: rat(BigInt(prev + share), BigInt(value)) });
      prev += share;
    });
    return index < 0 ? null : new ExecutionTuple(new StripedSequence(segs), index);
  }
}
