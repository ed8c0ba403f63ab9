/** Tensor codecs for Triton's datatypes; runs inside k6 and on Node. */
export {
  DATATYPES,
  DATATYPE_BYTES,
  batchedElementCount,
  batchedShape,
  byteSize,
  elementCount,
  formatShape,
  fromConfigDatatype,
  isDatatype,
  parseDatatype,
  shapeMatches,
  toConfigDatatype,
} from './datatypes.ts';
export type { Datatype } from './datatypes.ts';
export { bf16ArrayToFloat32, bf16ToFloat32, float32ArrayToBf16, float32ToBf16 } from './bf16.ts';
export { float32ArrayToFp16, float32ToFp16, fp16ArrayToFloat32, fp16ToFloat32 } from './fp16.ts';
export { decodeBytesTensor, decodeBytesTensorAsStrings, encodeBytesTensor } from './bytes.ts';
export type { BytesElement } from './bytes.ts';
export { decodeTensor, encodeTensor } from './codec.ts';
export type { DecodeOptions, TensorData, TensorValue } from './codec.ts';
export { utf8Decode, utf8Encode, utf8Length } from './utf8.ts';
export { TensorError, describeTensor, tensorProblem, validateTensor } from './validate.ts';
export type { RawTensor, TensorExpectation } from './validate.ts';
