/**
 * The one seeded random source (payloads, the simulated backend, injected faults, MNIST training, the fuzz
 * corpus): sfc32 seeded through splitmix32,
 * normal deviates by Box-Muller and Zipf ranks by rejection-inversion (Hörmann & Derflinger),
 * so that a seed gives the same payload bytes on every machine and Node version.
 */

/** A deterministic random stream; `fork(label)` derives an independent stream for one purpose. */
export interface Random {
  /** Next unsigned 32-bit integer. */
  uint32(): number;
  /** Uniform in [0, 1) with 53 random bits. */
  float(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Standard normal deviate. */
  normal(): number;
  /** An independent stream named by label (same seed + label → same stream). */
  fork(label: string): Random;
}

/** splitmix32 step: spreads a 32-bit seed over the generator state. */
function splitmix32(state: { s: number }): number {
  state.s = (state.s + 0x9e3779b9) | 0;
  let z = state.s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** FNV-1a hash of a label, used to derive forked streams. */
function hashLabel(label: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Creates the seeded stream; the same seed always yields the same sequence. */
export function createRandom(seed: number): Random {
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`invalid seed ${seed}; expected an integer >= 0`);
  const init = { s: (seed >>> 0) ^ Math.floor(seed / 2 ** 32) };
  let a = splitmix32(init);
  let b = splitmix32(init);
  let c = splitmix32(init);
  let d = splitmix32(init);
  let spare: number | undefined;

  const uint32 = (): number => {
    // sfc32: small, fast and passes PractRand; state is four 32-bit words.
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  // Warm up so that nearby seeds diverge at once.
  for (let i = 0; i < 12; i++) uint32();

  const float = (): number => ((uint32() >>> 5) * 67108864 + (uint32() >>> 6)) / 9007199254740992;

  return {
    uint32,
    float,
    int: (n: number) => Math.floor(float() * n),
    normal: () => {
      if (spare !== undefined) {
        const s = spare;
        spare = undefined;
        return s;
      }
      // Box-Muller; 1 - u keeps the logarithm's argument in (0, 1].
      const r = Math.sqrt(-2 * Math.log(1 - float()));
      const theta = 2 * Math.PI * float();
      spare = r * Math.sin(theta);
      return r * Math.cos(theta);
    },
    fork: (label: string) => createRandom((seed * 31 + hashLabel(label)) % 2 ** 32),
  };
}

/** log1p(x)/x, accurate near 0. */
function helper1(x: number): number {
  return Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1 - x * (0.5 - x * (1 / 3 - 0.25 * x));
}

/** expm1(x)/x, accurate near 0. */
function helper2(x: number): number {
  return Math.abs(x) > 1e-8 ? Math.expm1(x) / x : 1 + x * 0.5 * (1 + (x / 3) * (1 + 0.25 * x));
}

/**
 * Zipf sampler over ranks 1..n with P(k) ∝ k^-s (s > 0), by rejection-inversion: O(1) per draw
 * whatever n is, which matters for embedding tables of ten million rows.
 */
export function createZipf(n: number, s: number): (rng: Random) => number {
  if (!Number.isInteger(n) || n < 1) throw new Error(`invalid Zipf size ${n}; expected an integer >= 1`);
  if (!(s > 0)) throw new Error(`invalid Zipf exponent ${s}; expected a number > 0 (e.g. 1.05)`);
  const h = (x: number) => Math.exp(-s * Math.log(x));
  const hIntegral = (x: number) => {
    const logX = Math.log(x);
    return helper2((1 - s) * logX) * logX;
  };
  const hIntegralInverse = (x: number) => {
    let t = x * (1 - s);
    if (t < -1) t = -1; // numerical guard: the inverse is only defined for t >= -1
    return Math.exp(helper1(t) * x);
  };
  const hX1 = hIntegral(1.5) - 1;
  const hN = hIntegral(n + 0.5);
  const sVal = 2 - hIntegralInverse(hIntegral(2.5) - h(2));
  return (rng: Random) => {
    for (;;) {
      const u = hN + rng.float() * (hX1 - hN);
      const x = hIntegralInverse(u);
      let k = Math.floor(x + 0.5);
      if (k < 1) k = 1;
      else if (k > n) k = n;
      if (k - x <= sVal || u >= hIntegral(k + 0.5) - h(k)) return k;
    }
  };
}
