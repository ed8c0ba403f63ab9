/**
 * Reading decoupled ModelStreamInfer messages in both JSON spellings: as grpc-js with proto-loader gives them and
 * as real k6 v2.2.0's k6/net/grpc Stream gave them from real Triton 2.60.0's repeat backend.
 */
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

  it("real k6's messages from real Triton (k6/net/grpc Stream, lowerCamelCase, captured)", () => {
    const response = {
      errorMessage: '',
      inferResponse: {
        rawOutputContents: ['BwAAAA==', 'AAAAAA=='],
        modelName: 'repeat_int32',
        modelVersion: '1',
        id: 'k6',
        parameters: { triton_final_response: { boolParam: false } },
        outputs: [
          { shape: ['1'], parameters: {}, contents: null, name: 'OUT', datatype: 'INT32' },
          { shape: ['1'], parameters: {}, contents: null, name: 'IDX', datatype: 'UINT32' },
        ],
      },
    };
    const emptyFinal = {
      errorMessage: '',
      inferResponse: {
        modelName: 'repeat_int32',
        modelVersion: '',
        id: 'k6',
        parameters: { triton_final_response: { boolParam: true } },
        outputs: [],
        rawOutputContents: [],
      },
    };
    expect(readDecoupledResponse(response)).toEqual({ id: 'k6', final: false, outputs: 2 });
    expect(readDecoupledResponse(emptyFinal)).toEqual({ id: 'k6', final: true, outputs: 0 });
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
