// One onnx backend instance's InferenceSession, on its own worker thread so that instances run in parallel across
// cores as Triton's CPU instances do (onnxruntime-node's session.run blocks the thread that calls it).
// Plain JavaScript on purpose: worker threads do not inherit the tsx loader the CLI registers in-process.
// Protocol (see onnx.ts): workerData { ortUrl, modelPath, sessionOptions } -> posts { ready, inputs, outputs } or
// { error }; then { id, feeds, fetches } -> { id, outputs } or { id, error }, feeds/outputs as { type, data, dims }.
import { parentPort, workerData } from 'node:worker_threads';

const port = parentPort;
if (!port)
  throw new Error('onnx-worker.js runs only as a worker thread of packages/server/src/backends/onnx.ts');

let session;
try {
  const ort = await import(workerData.ortUrl);
  session = await ort.InferenceSession.create(workerData.modelPath, workerData.sessionOptions);
  port.on('message', async (message) => {
    try {
      const feeds = {};
      for (const [name, feed] of Object.entries(message.feeds)) {
        feeds[name] = new ort.Tensor(feed.type, feed.data, feed.dims);
      }
      const results = await session.run(feeds, message.fetches);
      const outputs = {};
      const transfer = [];
      for (const [name, tensor] of Object.entries(results)) {
        outputs[name] = { type: tensor.type, data: tensor.data, dims: [...tensor.dims] };
        if (ArrayBuffer.isView(tensor.data)) transfer.push(tensor.data.buffer);
      }
      try {
        port.postMessage({ id: message.id, outputs }, transfer);
      } catch {
        port.postMessage({ id: message.id, outputs }); // buffers onnxruntime owns cannot be detached: copy them
      }
    } catch (error) {
      port.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) });
    }
  });
  const meta = (list = []) =>
    list.map((m) => ({
      name: m.name,
      type: m.isTensor ? m.type : undefined,
      shape: m.isTensor ? m.shape : undefined,
    }));
  port.postMessage({
    ready: true,
    inputs: meta(session.inputMetadata),
    outputs: meta(session.outputMetadata),
  });
} catch (error) {
  port.postMessage({ error: error instanceof Error ? error.message : String(error) });
}
