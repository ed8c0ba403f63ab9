/**
 * The training side of the MNIST classifier (models/mnist/net-shape.ts): hand-written forward and backward passes
 * over Float32Arrays, initial weights and the shifted-digit augmentation, used by train.ts only.
 */
import { DIGIT_PIXELS, DIGIT_SIDE } from '../../models/mnist/digits.ts';
import {
  CLASSES,
  CONV_SIDE,
  flatSize,
  KERNEL,
  type NetParams,
  type NetShape,
  POOL_SIDE,
} from '../../models/mnist/net-shape.ts';

/** Creates parameters with He-uniform initial weights and zero biases. */
export function initParams(shape: NetShape, random: () => number): NetParams {
  const he = (length: number, fanIn: number): Float32Array => {
    const limit = Math.sqrt(6 / fanIn);
    return Float32Array.from({ length }, () => (random() * 2 - 1) * limit);
  };
  const flat = flatSize(shape);
  return {
    shape,
    convW: he(shape.filters * KERNEL * KERNEL, KERNEL * KERNEL),
    convB: new Float32Array(shape.filters),
    fc1W: he(shape.hidden * flat, flat),
    fc1B: new Float32Array(shape.hidden),
    fc2W: he(CLASSES * shape.hidden, shape.hidden),
    fc2B: new Float32Array(CLASSES),
  };
}

/** Parameters of the same shape, all zero (gradient accumulators, momentum buffers). */
export function zerosLike(params: NetParams): NetParams {
  return {
    shape: params.shape,
    convW: new Float32Array(params.convW.length),
    convB: new Float32Array(params.convB.length),
    fc1W: new Float32Array(params.fc1W.length),
    fc1B: new Float32Array(params.fc1B.length),
    fc2W: new Float32Array(params.fc2W.length),
    fc2B: new Float32Array(params.fc2B.length),
  };
}

/** The parameter arrays in a fixed order, for element-wise optimizer updates. */
export function paramArrays(params: NetParams): Float32Array[] {
  return [params.convW, params.convB, params.fc1W, params.fc1B, params.fc2W, params.fc2B];
}

/** Per-sample activations kept between the forward and the backward pass. */
export interface Activations {
  conv: Float32Array;
  pooled: Float32Array;
  poolArgmax: Int32Array;
  hidden: Float32Array;
  logits: Float32Array;
}

/** Allocates activation buffers for one sample. */
export function createActivations(shape: NetShape): Activations {
  const flat = flatSize(shape);
  return {
    conv: new Float32Array(shape.filters * CONV_SIDE * CONV_SIDE),
    pooled: new Float32Array(flat),
    poolArgmax: new Int32Array(flat),
    hidden: new Float32Array(shape.hidden),
    logits: new Float32Array(CLASSES),
  };
}

/** Runs one 28x28 image through the network; the logits end up in `act.logits`. */
export function forward(params: NetParams, image: Float32Array, act: Activations): Float32Array {
  const { filters, hidden } = params.shape;
  const plane = CONV_SIDE * CONV_SIDE;
  for (let f = 0; f < filters; f++) {
    const bias = params.convB[f];
    const out = act.conv.subarray(f * plane, (f + 1) * plane);
    out.fill(bias);
    for (let ky = 0; ky < KERNEL; ky++) {
      for (let kx = 0; kx < KERNEL; kx++) {
        const w = params.convW[(f * KERNEL + ky) * KERNEL + kx];
        for (let y = 0; y < CONV_SIDE; y++) {
          const inRow = (y + ky) * DIGIT_SIDE + kx;
          const outRow = y * CONV_SIDE;
          for (let x = 0; x < CONV_SIDE; x++) out[outRow + x] += w * image[inRow + x];
        }
      }
    }
    for (let i = 0; i < plane; i++) if (out[i] < 0) out[i] = 0;
    // 2x2 max pooling, remembering which conv cell won so the gradient can be routed back.
    for (let py = 0; py < POOL_SIDE; py++) {
      for (let px = 0; px < POOL_SIDE; px++) {
        let best = 2 * py * CONV_SIDE + 2 * px;
        for (const offset of [1, CONV_SIDE, CONV_SIDE + 1]) {
          const cell = 2 * py * CONV_SIDE + 2 * px + offset;
          if (out[cell] > out[best]) best = cell;
        }
        const p = (f * POOL_SIDE + py) * POOL_SIDE + px;
        act.pooled[p] = out[best];
        act.poolArgmax[p] = f * plane + best;
      }
    }
  }
  const flat = flatSize(params.shape);
  for (let j = 0; j < hidden; j++) {
    let sum = params.fc1B[j];
    const row = j * flat;
    for (let i = 0; i < flat; i++) sum += params.fc1W[row + i] * act.pooled[i];
    act.hidden[j] = sum > 0 ? sum : 0;
  }
  for (let k = 0; k < CLASSES; k++) {
    let sum = params.fc2B[k];
    for (let j = 0; j < hidden; j++) sum += params.fc2W[k * hidden + j] * act.hidden[j];
    act.logits[k] = sum;
  }
  return act.logits;
}

/** Index of the largest logit. */
export function argmax(values: Float32Array): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

/**
 * Adds the softmax cross-entropy gradient of one sample to `grads` (after `forward` filled `act`) and returns its loss.
 * `scratch` needs `hidden + flat` floats.
 */
export function backward(
  params: NetParams,
  image: Float32Array,
  label: number,
  act: Activations,
  grads: NetParams,
  scratch: Float32Array,
): number {
  const { hidden } = params.shape;
  const flat = flatSize(params.shape);
  const max = Math.max(...act.logits);
  let total = 0;
  const dLogits = new Float32Array(CLASSES);
  for (let k = 0; k < CLASSES; k++) {
    dLogits[k] = Math.exp(act.logits[k] - max);
    total += dLogits[k];
  }
  for (let k = 0; k < CLASSES; k++) dLogits[k] = dLogits[k] / total - (k === label ? 1 : 0);
  const loss = -(act.logits[label] - max - Math.log(total));

  const dHidden = scratch.subarray(0, hidden).fill(0);
  for (let k = 0; k < CLASSES; k++) {
    const d = dLogits[k];
    grads.fc2B[k] = grads.fc2B[k] + d;
    for (let j = 0; j < hidden; j++) {
      grads.fc2W[k * hidden + j] = grads.fc2W[k * hidden + j] + d * act.hidden[j];
      dHidden[j] = dHidden[j] + d * params.fc2W[k * hidden + j];
    }
  }
  const dPooled = scratch.subarray(hidden, hidden + flat).fill(0);
  for (let j = 0; j < hidden; j++) {
    if (act.hidden[j] <= 0) continue; // ReLU passes no gradient where it clipped
    const d = dHidden[j];
    grads.fc1B[j] = grads.fc1B[j] + d;
    const row = j * flat;
    for (let i = 0; i < flat; i++) {
      grads.fc1W[row + i] = grads.fc1W[row + i] + d * act.pooled[i];
      dPooled[i] = dPooled[i] + d * params.fc1W[row + i];
    }
  }
  // Only the winning cell of each pooling window gets a gradient, and only if the ReLU let it through.
  const plane = CONV_SIDE * CONV_SIDE;
  for (let p = 0; p < flat; p++) {
    const d = dPooled[p];
    if (d === 0 || act.pooled[p] <= 0) continue;
    const cell = act.poolArgmax[p];
    const f = Math.floor(cell / plane);
    const y = Math.floor((cell % plane) / CONV_SIDE);
    const x = cell % CONV_SIDE;
    grads.convB[f] = grads.convB[f] + d;
    for (let ky = 0; ky < KERNEL; ky++) {
      for (let kx = 0; kx < KERNEL; kx++) {
        const w = (f * KERNEL + ky) * KERNEL + kx;
        grads.convW[w] = grads.convW[w] + d * image[(y + ky) * DIGIT_SIDE + x + kx];
      }
    }
  }
  return loss;
}

/** Copies image `index` of `pixels` into `out`, shifted by (dx, dy) pixels with zero fill (data augmentation). */
export function shiftedImage(
  pixels: Float32Array,
  index: number,
  dx: number,
  dy: number,
  out: Float32Array,
): void {
  out.fill(0);
  const base = index * DIGIT_PIXELS;
  for (let y = 0; y < DIGIT_SIDE; y++) {
    const sy = y - dy;
    if (sy < 0 || sy >= DIGIT_SIDE) continue;
    for (let x = 0; x < DIGIT_SIDE; x++) {
      const sx = x - dx;
      if (sx >= 0 && sx < DIGIT_SIDE) out[y * DIGIT_SIDE + x] = pixels[base + sy * DIGIT_SIDE + sx];
    }
  }
}
