// A TypeScript scenario run directly (k6 >= 0.57 runs .ts): bundled on the fly.
import { check } from 'k6';
import type { Options } from 'k6/options';

export const options: Options = { vus: 1, iterations: 2 };

interface Point {
  x: number;
}

export default function (): void {
  const p: Point = { x: 1 };
  check(p, { 'typed value': (v: Point) => v.x === 1 });
}
