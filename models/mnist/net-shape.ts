/**
 * The MNIST network's shape and parameter layout: Conv 5x5 (1 -> F channels) -> ReLU -> MaxPool 2x2 -> Flatten ->
 * Gemm (-> H) -> ReLU -> Gemm (-> 10 logits), in ONNX's NCHW layout and Gemm's [out, in] weight layout, so the
 * weights export to ONNX as they are (export-onnx.ts). The training code is training/mnist/.
 */
import { DIGIT_SIDE } from './digits.ts';

/** Convolution kernel side. */
export const KERNEL = 5;
export const CONV_SIDE = DIGIT_SIDE - KERNEL + 1; // 24
export const POOL_SIDE = CONV_SIDE / 2; // 12
export const CLASSES = 10;

/** Network shape. */
export interface NetShape {
  /** Convolution output channels. */
  filters: number;
  /** Hidden units of the first fully connected layer. */
  hidden: number;
}

/** The trainable parameters, in ONNX layouts: convW [F,1,5,5], fc1W [H, F*12*12], fc2W [10, H]. */
export interface NetParams {
  shape: NetShape;
  convW: Float32Array;
  convB: Float32Array;
  fc1W: Float32Array;
  fc1B: Float32Array;
  fc2W: Float32Array;
  fc2B: Float32Array;
}

/** Length of the flattened pooled feature vector for a shape. */
export function flatSize(shape: NetShape): number {
  return shape.filters * POOL_SIDE * POOL_SIDE;
}
