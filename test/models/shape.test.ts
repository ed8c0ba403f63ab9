import { describe, expect, it } from 'vitest';
import { applyShapes, parseShapeOverrides } from '../../models/shape.ts';

const INPUTS = [
  { name: 'IMAGE', datatype: 'FP32' as const, dims: [3, -1, -1] },
  { name: 'ids:0', datatype: 'INT32' as const, dims: [-1] },
];

describe('--shape overrides', () => {
  it('parses name:dims for variable dims, repeatable, names may hold ":"', () => {
    expect(parseShapeOverrides(['IMAGE:3,224,224', 'ids:0:128'], INPUTS)).toEqual({
      IMAGE: [3, 224, 224],
      'ids:0': [128],
    });
    expect(applyShapes(INPUTS, { IMAGE: [3, 8, 8], 'ids:0': [4] }).map((t) => t.dims)).toEqual([
      [3, 8, 8],
      [4],
    ]);
  });

  it('names the input for an unknown input, a bad dim, a wrong rank or a changed fixed dim', () => {
    expect(() => parseShapeOverrides(['LABEL:1'], INPUTS)).toThrow(
      'invalid --shape "LABEL:1": the model has no input "LABEL"; inputs: IMAGE, ids:0',
    );
    expect(() => parseShapeOverrides(['IMAGE:3,0,224'], INPUTS)).toThrow(
      'dim 1 of IMAGE must be a positive integer, got "0"',
    );
    expect(() => parseShapeOverrides(['IMAGE:3,-1,224'], INPUTS)).toThrow(
      'dim 1 of IMAGE must be a positive integer, got "-1"',
    );
    expect(() => parseShapeOverrides(['IMAGE:3,x,224'], INPUTS)).toThrow(
      'dim 1 of IMAGE must be a positive integer, got "x"',
    );
    expect(() => parseShapeOverrides(['IMAGE:224,224'], INPUTS)).toThrow(
      'IMAGE has 3 dims [3,-1,-1] (batch excluded), got 2',
    );
    expect(() => parseShapeOverrides(['IMAGE:1,224,224'], INPUTS)).toThrow(
      'dim 0 of IMAGE is fixed at 3 by the model, got 1',
    );
    expect(() => parseShapeOverrides(['IMAGE'], INPUTS)).toThrow(
      'invalid --shape "IMAGE"; expected name:d1,d2,...',
    );
  });

  it('asks for --shape when a variable dim is left', () => {
    expect(() => applyShapes(INPUTS, { IMAGE: [3, 2, 2] })).toThrow(
      'input ids:0 has variable dims [-1]; give its shape with --shape ids:0:N',
    );
  });
});
