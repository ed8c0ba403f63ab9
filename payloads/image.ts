/**
 * Image payloads, NCHW: real JPEG/PNG files preprocessed as torchvision's ImageNet evaluation does
 * (resize the shorter side to 256 with bilinear interpolation, centre-crop 224, scale to [0,1],
 * subtract the mean and divide by the std per channel), or random pixels.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import type { Random } from '../lib/random/random.ts';
import type { Distribution } from './types.ts';

/** An RGBA image in memory. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Preprocessing of the catalog's image recipe. */
export interface ImageRecipe {
  channels: number;
  height: number;
  width: number;
  mean: number[];
  std: number[];
}

const IMAGE_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png']);

/** Decodes a JPEG or PNG file (by content, not extension); errors name the file. */
export function decodeImage(bytes: Uint8Array, file: string): RgbaImage {
  try {
    if (bytes[0] === 0x89 && bytes[1] === 0x50) {
      const png = PNG.sync.read(Buffer.from(bytes));
      return { width: png.width, height: png.height, data: new Uint8Array(png.data) };
    }
    if (bytes[0] === 0xff && bytes[1] === 0xd8) {
      const img = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxMemoryUsageInMB: 1024 });
      return { width: img.width, height: img.height, data: img.data };
    }
  } catch (err) {
    throw new Error(`cannot decode image ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  throw new Error(`image ${file} is neither JPEG nor PNG`);
}

/** The JPEG/PNG files of a folder, sorted by name; throws when there are none. */
export function listImages(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    throw new Error(`cannot read image folder ${dir}; pass a folder of .jpg/.png files with --images`);
  }
  const files = names.filter((n) => IMAGE_EXTENSIONS.has(extname(n).toLowerCase())).sort();
  if (files.length === 0) throw new Error(`image folder ${dir} holds no .jpg, .jpeg or .png files`);
  return files.map((n) => join(dir, n));
}

/** The size after resizing the shorter side to `shorter` (torchvision's int(size * long / short)). */
export function resizedSize(
  width: number,
  height: number,
  shorter: number,
): { width: number; height: number } {
  return width <= height
    ? { width: shorter, height: Math.floor((shorter * height) / width) }
    : { width: Math.floor((shorter * width) / height), height: shorter };
}

/**
 * Resize (bilinear, half-pixel centres) then centre-crop, computed only over the crop, into
 * normalised CHW floats appended to `out` at `offset`.
 */
export function preprocessImage(
  img: RgbaImage,
  recipe: ImageRecipe,
  out: Float32Array,
  offset: number,
): void {
  const { channels, height: cropH, width: cropW, mean, std } = recipe;
  // The 256/224 ratio of the ImageNet evaluation, kept for other crop sizes.
  const resize = resizedSize(img.width, img.height, Math.round((Math.min(cropH, cropW) * 256) / 224));
  const top = Math.round((resize.height - cropH) / 2);
  const left = Math.round((resize.width - cropW) / 2);
  const scaleY = img.height / resize.height;
  const scaleX = img.width / resize.width;
  const plane = cropH * cropW;
  for (let y = 0; y < cropH; y++) {
    const sy = Math.min(Math.max((y + top + 0.5) * scaleY - 0.5, 0), img.height - 1);
    const y0 = Math.floor(sy);
    const y1 = Math.min(y0 + 1, img.height - 1);
    const fy = sy - y0;
    for (let x = 0; x < cropW; x++) {
      const sx = Math.min(Math.max((x + left + 0.5) * scaleX - 0.5, 0), img.width - 1);
      const x0 = Math.floor(sx);
      const x1 = Math.min(x0 + 1, img.width - 1);
      const fx = sx - x0;
      const rgb = [0, 0, 0];
      for (let c = 0; c < 3; c++) {
        const p00 = img.data[(y0 * img.width + x0) * 4 + c]!;
        const p01 = img.data[(y0 * img.width + x1) * 4 + c]!;
        const p10 = img.data[(y1 * img.width + x0) * 4 + c]!;
        const p11 = img.data[(y1 * img.width + x1) * 4 + c]!;
        rgb[c] = (p00 * (1 - fx) + p01 * fx) * (1 - fy) + (p10 * (1 - fx) + p11 * fx) * fy;
      }
      const pixel = y * cropW + x;
      if (channels === 1) {
        const grey = (0.299 * rgb[0]! + 0.587 * rgb[1]! + 0.114 * rgb[2]!) / 255;
        out[offset + pixel] = (grey - mean[0]!) / std[0]!;
      } else {
        for (let c = 0; c < channels; c++)
          out[offset + c * plane + pixel] = (rgb[c]! / 255 - mean[c]!) / std[c]!;
      }
    }
  }
}

/** Random pixels: uniform in [0,1) then normalised as an image would be, or standard normal values. */
export function randomImage(
  rng: Random,
  recipe: ImageRecipe,
  distribution: Distribution,
  out: Float32Array,
  offset: number,
) {
  const plane = recipe.height * recipe.width;
  for (let c = 0; c < recipe.channels; c++) {
    for (let i = 0; i < plane; i++) {
      out[offset + c * plane + i] =
        distribution === 'normal' ? rng.normal() : (rng.float() - recipe.mean[c]!) / recipe.std[c]!;
    }
  }
}

/** Builds `rows` images into one NCHW Float32Array: files in a seeded order (cycled), or random pixels. */
export function imageBatch(
  rng: Random,
  recipe: ImageRecipe,
  rows: number,
  source: { files?: string[]; distribution: Distribution; next: () => number },
): Float32Array {
  const size = recipe.channels * recipe.height * recipe.width;
  const out = new Float32Array(rows * size);
  for (let r = 0; r < rows; r++) {
    if (source.files) {
      const file = source.files[source.next() % source.files.length]!;
      preprocessImage(decodeImage(readFileSync(file), file), recipe, out, r * size);
    } else randomImage(rng, recipe, source.distribution, out, r * size);
  }
  return out;
}
