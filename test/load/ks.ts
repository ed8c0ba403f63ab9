/** Kolmogorov–Smirnov helpers for the arrival tests: the statistic, and the exponential and gamma CDFs. */

/** The one-sample KS statistic D: the largest gap between the sample's empirical CDF and `cdf`. */
export function ksStatistic(sample: readonly number[], cdf: (x: number) => number): number {
  const sorted = [...sample].sort((a, b) => a - b);
  const n = sorted.length;
  let d = 0;
  for (let i = 0; i < n; i++) {
    const f = cdf(sorted[i]!);
    d = Math.max(d, (i + 1) / n - f, f - i / n);
  }
  return d;
}

/** The KS critical value at significance 0.001 for n samples (asymptotic: 1.949 / sqrt(n)). */
export function ksCritical001(n: number): number {
  return 1.949 / Math.sqrt(n);
}

/** CDF of the exponential distribution with mean `mean`. */
export function exponentialCdf(mean: number): (x: number) => number {
  return (x) => (x <= 0 ? 0 : 1 - Math.exp(-x / mean));
}

/** log Γ(x) for x > 0 (Lanczos, g = 7). */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = c[0]!;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The regularised lower incomplete gamma P(a, x): a series below a + 1, a continued fraction above. */
function lowerGammaP(a: number, x: number): number {
  if (x <= 0) return 0;
  const front = Math.exp(a * Math.log(x) - x - logGamma(a));
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 1000 && Math.abs(term) > Math.abs(sum) * 1e-15; n++) {
      term *= x / (a + n);
      sum += term;
    }
    return front * sum;
  }
  // Lentz's method for the continued fraction of Q(a, x).
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-15) break;
  }
  return 1 - front * h;
}

/** CDF of the gamma distribution with shape k and scale θ. */
export function gammaCdf(shape: number, scale: number): (x: number) => number {
  return (x) => lowerGammaP(shape, x / scale);
}
