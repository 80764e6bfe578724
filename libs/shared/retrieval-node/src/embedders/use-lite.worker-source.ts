// The body of the USE-lite worker thread, run with `new Worker(source, { eval: true })`. It is plain
// CommonJS text (not a module of this repo) so it runs the same under tsx, Jest, and the esbuild
// bundles of the daemon and the benches; the two package entry points arrive resolved in `workerData`.
//
// Protocol (one message at a time, processed in order):
//   worker → parent  { type: 'ready', loadMs }            | { type: 'load_failed', reason }
//   parent → worker  { id, texts: string[] }
//   worker → parent  { type: 'vectors', id, width, data: Float32Array (rows × width, transferred) }
//                  | { type: 'failed', id, reason }
export const USE_LITE_WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const reasonOf = (e) => (e && typeof e.message === 'string' ? e.message : String(e)).slice(0, 300);
async function main() {
  const started = performance.now();
  let model;
  try {
    const { initModel } = require(workerData.embeddingsEntry);
    const { modelSource } = require(workerData.modelEntry);
    // TF.js sometimes reports its WASM backend as not yet initialised on a busy machine (seen once
    // in CI); that is transient, so the load is tried up to three times before it counts as failed.
    for (let attempt = 1; ; attempt++) {
      try {
        model = await initModel(modelSource);
        // The first execution compiles the graph and allocates the WASM heap (~300 ms): pay it at load.
        await model.embed([' ']);
        break;
      } catch (e) {
        if (attempt >= 3 || !/not yet been initialized/.test(reasonOf(e))) throw e;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  } catch (e) {
    parentPort.postMessage({ type: 'load_failed', reason: reasonOf(e) });
    return;
  }
  parentPort.postMessage({ type: 'ready', loadMs: performance.now() - started });
  let queue = Promise.resolve();
  parentPort.on('message', (request) => {
    queue = queue.then(async () => {
      try {
        const rows = await model.embed(request.texts);
        const width = rows.length > 0 ? rows[0].length : 0;
        const data = new Float32Array(rows.length * width);
        for (let i = 0; i < rows.length; i++) {
          if (rows[i].length !== width) throw new Error('ragged embedding rows');
          data.set(rows[i], i * width);
        }
        parentPort.postMessage({ type: 'vectors', id: request.id, data, width }, [data.buffer]);
      } catch (e) {
        parentPort.postMessage({ type: 'failed', id: request.id, reason: reasonOf(e) });
      }
    });
  });
}
void main();
`;
