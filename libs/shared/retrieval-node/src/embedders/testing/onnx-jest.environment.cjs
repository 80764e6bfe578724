// Jest environment for specs that run onnxruntime-node. The native addon builds output tensors
// with the main realm's typed-array constructors, while onnxruntime-common (loaded inside Jest's
// vm sandbox) checks `data instanceof Float32Array` against the sandbox's constructors and throws
// "A float32 tensor's data must be type of function Float32Array()". Sharing the host realm's
// typed-array constructors with the sandbox fixes that. Used per file via the
// `@jest-environment` docblock, so other specs keep the stock node environment.
//
// Jest also gives the sandbox a *copy* of process.env: assigning ORT_DISABLE_TELEMETRY inside a
// spec never reaches setenv(3), so the native runtime would not see it (observed: telemetry files
// were written during a spec run). The host-realm process.env is the real one: set it here.
const { TestEnvironment } = require('jest-environment-node');

const TYPED_ARRAYS = [
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
];

class OnnxJestEnvironment extends TestEnvironment {
  constructor(config, context) {
    process.env.ORT_DISABLE_TELEMETRY = '1';
    super(config, context);
    for (const name of TYPED_ARRAYS) this.global[name] = globalThis[name];
  }
}

module.exports = OnnxJestEnvironment;
