import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import { getModel } from '../../models/index.ts';
import { generateSet } from '../../payloads/generate.ts';
import { decodeImage, listImages, preprocessImage, resizedSize } from '../../payloads/image.ts';

const RECIPE = {
  channels: 3,
  height: 224,
  width: 224,
  mean: [0.485, 0.456, 0.406],
  std: [0.229, 0.224, 0.225],
};

/** A PNG of one colour, or left half red / right half blue when `split`. */
function png(width: number, height: number, rgb: [number, number, number], split = false): Buffer {
  const img = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const c: [number, number, number] = split ? (x < width / 2 ? [255, 0, 0] : [0, 0, 255]) : rgb;
      img.data[i] = c[0];
      img.data[i + 1] = c[1];
      img.data[i + 2] = c[2];
      img.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(img);
}

describe('image preprocessing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k6t-img-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('resizes the shorter side to 256 keeping the aspect ratio', () => {
    expect(resizedSize(300, 260, 256)).toEqual({ width: 295, height: 256 });
    expect(resizedSize(100, 400, 256)).toEqual({ width: 256, height: 1024 });
  });

  it('crops 224x224 NCHW and normalises with ImageNet mean/std', () => {
    const img = decodeImage(png(300, 260, [128, 64, 32]), 'flat.png');
    expect([img.width, img.height]).toEqual([300, 260]);
    const out = new Float32Array(3 * 224 * 224);
    preprocessImage(img, RECIPE, out, 0);
    const plane = 224 * 224;
    [128, 64, 32].forEach((v, c) => {
      const want = (v / 255 - RECIPE.mean[c]!) / RECIPE.std[c]!;
      expect(out[c * plane]).toBeCloseTo(want, 5);
      expect(out[c * plane + plane - 1]).toBeCloseTo(want, 5);
    });
  });

  it('keeps the centre of the image: left half red, right half blue', () => {
    const out = new Float32Array(3 * 224 * 224);
    preprocessImage(decodeImage(png(40, 20, [0, 0, 0], true), 'split.png'), RECIPE, out, 0);
    const plane = 224 * 224;
    const red = (x: number, y: number) => out[y * 224 + x]! * RECIPE.std[0]! + RECIPE.mean[0]!;
    const blue = (x: number, y: number) => out[2 * plane + y * 224 + x]! * RECIPE.std[2]! + RECIPE.mean[2]!;
    expect(red(10, 100)).toBeCloseTo(1, 5);
    expect(blue(10, 100)).toBeCloseTo(0, 5);
    expect(red(214, 100)).toBeCloseTo(0, 5);
    expect(blue(214, 100)).toBeCloseTo(1, 5);
  });

  it('decodes JPEG too and rejects other files naming them', () => {
    const data = Buffer.alloc(16 * 16 * 4, 200);
    const jpg = jpeg.encode({ data, width: 16, height: 16 }, 90).data;
    const img = decodeImage(jpg, 'a.jpg');
    expect([img.width, img.height]).toEqual([16, 16]);
    expect(Math.abs(img.data[0]! - 200)).toBeLessThan(4);
    expect(() => decodeImage(Buffer.from('GIF89a'), 'x.gif')).toThrow('image x.gif is neither JPEG nor PNG');
  });

  it('builds a batch from a folder of images as [B, 3, 224, 224] FP16 or FP32', () => {
    writeFileSync(join(dir, 'a.png'), png(320, 240, [10, 20, 30]));
    writeFileSync(join(dir, 'b.png'), png(240, 320, [200, 100, 0]));
    writeFileSync(join(dir, 'notes.txt'), 'not an image');
    expect(listImages(dir).map((f) => f.slice(dir.length + 1))).toEqual(['a.png', 'b.png']);
    const set = generateSet(getModel('resnext101-32x4d'), {
      batch: 4,
      count: 2,
      seed: 1,
      images: dir,
      precision: 'FP16',
    });
    const t = set.samples[0]!.tensors[0]!;
    expect(t).toMatchObject({ name: 'INPUT__0', datatype: 'FP16', shape: [4, 3, 224, 224] });
    expect(t.values).toHaveLength(4 * 3 * 224 * 224);
    const empty = mkdtempSync(join(tmpdir(), 'k6t-empty-'));
    expect(() => generateSet(getModel('resnet50'), { count: 1, seed: 1, images: empty })).toThrow(
      `image folder ${empty} holds no .jpg, .jpeg or .png files`,
    );
    rmSync(empty, { recursive: true, force: true });
  });

  it('makes random images: uniform pixels normalised, or standard normal', () => {
    const u = generateSet(getModel('resnet50'), { count: 1, seed: 1 }).samples[0]!.tensors[0]!;
    expect(u.shape).toEqual([16, 3, 224, 224]);
    const first = (u.values as Float32Array).subarray(0, 224 * 224);
    expect(Math.min(...first)).toBeGreaterThanOrEqual(-RECIPE.mean[0]! / RECIPE.std[0]! - 1e-6);
    expect(Math.max(...first)).toBeLessThanOrEqual((1 - RECIPE.mean[0]!) / RECIPE.std[0]! + 1e-6);
    const n = generateSet(getModel('resnet50'), { batch: 1, count: 1, seed: 1, distribution: 'normal' });
    const values = n.samples[0]!.tensors[0]!.values as Float32Array;
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    expect(Math.abs(mean)).toBeLessThan(0.02);
  });
});
