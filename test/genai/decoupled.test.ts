/** Reading decoupled ModelStreamInfer messages in both JSON spellings, as real Triton 2.60.0 sends them. */
import { describe, expect, it } from 'vitest';
import { readDecoupledResponse } from '../../lib/genai/decoupled.ts';

describe('readDecoupledResponse', () => {
  it("a response with outputs (proto-loader's proto names)", () => {
    const message = {
      infer_response: {
        model_name: 'repeat_int32',
        model_version: '1',
        id: 'a',
        parameters: { triton_final_response: { bool_param: false, parameter_choice: 'bool_param' } },
        outputs: [{ name: 'OUT' }, { name: 'IDX' }],
        raw_output_contents: [Buffer.from([1, 0, 0, 0]), Buffer.from([0, 0, 0, 0])],
      },
    };
    expect(readDecoupledResponse(message)).toEqual({ id: 'a', final: false, outputs: 2 });
  });

  it("the empty final response (k6's lowerCamelCase)", () => {
    const message = {
      errorMessage: '',
      inferResponse: {
        modelName: 'repeat_int32',
        id: 'b',
        parameters: { triton_final_response: { boolParam: true } },
      },
    };
    expect(readDecoupledResponse(message)).toEqual({ id: 'b', final: true, outputs: 0 });
  });

  it('an error is final, with or without the parameter', () => {
    expect(readDecoupledResponse({ error_message: 'bad', infer_response: { id: 'c' } })).toEqual({
      id: 'c',
      error: 'bad',
      final: true,
      outputs: 0,
    });
    expect(readDecoupledResponse({ errorMessage: 'model gone' })).toEqual({
      error: 'model gone',
      final: true,
      outputs: 0,
    });
  });
});
