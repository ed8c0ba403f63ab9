/** Whether onnxruntime-node is installed: the tests that run ONNX models skip, saying why, where it is not. */
import { createRequire } from 'node:module';

export const hasOnnxRuntime = (() => {
  try {
    createRequire(import.meta.url).resolve('onnxruntime-node');
    return true;
  } catch {
    return false;
  }
})();
