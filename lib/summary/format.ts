import { us_to_ms } from '../units.ts';
/**
 * Number formatting shared by the writers: C++ ostream's default (printf %g, 6 significant digits),
 * which perf_analyzer's stdout and CSV use for throughput, and fixed-decimal ms for the markdown table.
 */

/** Formats like C++ `std::cout << double` with default precision (printf "%g"): 709.111, 1515, 1.77603e+06. */
export function formatG(value: number, precision = 6): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf';
  if (value === 0) return '0';
  const exponential = value.toExponential(precision - 1);
  const exponent = Number(exponential.slice(exponential.indexOf('e') + 1));
  const strip = (text: string) => (text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text);
  if (exponent >= -4 && exponent < precision) return strip(value.toFixed(precision - 1 - exponent));
  const [mantissa, exp] = exponential.split('e') as [string, string];
  const sign = exp.startsWith('-') ? '-' : '+';
  const digits = exp.replace(/^[+-]/, '').padStart(2, '0');
  return `${strip(mantissa)}e${sign}${digits}`;
}

/** Microseconds as perf_analyzer writes them: integer division of ns by 1000, i.e. truncated us. */
export function usInt(us: number): number {
  return Math.max(0, Math.trunc(us));
}

/** Microseconds as milliseconds with two decimals, the seeds' table format. */
export function msFixed(us: number, decimals = 2): string {
  return us_to_ms(us).toFixed(decimals);
}

/** A count with thousands separators, as a reader expects it in a sentence: 1,204. */
export function formatCount(value: number): string {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
