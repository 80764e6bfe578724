// RAG-17: ONNX Runtime telemetry is disabled explicitly before any inference session exists.
//
// What onnxruntime-node 1.30.0 exposes (inspected in node_modules, Linux x64):
// - The JS API (`ort.env`, SessionOptions, RunOptions) has NO telemetry switch; `ort.env` only has
//   logLevel/debug/trace/wasm/webgl/webgpu flags. The native C API's `DisableTelemetryEvents(env)`
//   is not bound by the N-API addon.
// - The bundled `libonnxruntime.so.1` DOES contain a POSIX telemetry provider
//   (`core/platform/posix/telemetry.cc`, Microsoft 1DS client, collector
//   `https://mobile.events.data.microsoft.com/OneCollector/1.0`). Traced with strace: creating the
//   first session without the switch reads /etc/machine-id and /proc/self/cmdline, creates
//   `~/.cache/Microsoft/DeveloperTools/.onnxruntime/{onnxruntime.db,deviceid}`, `/tmp/.ses` and
//   `/tmp/mat-debug-<pid>.log`.
// - The library reads the environment variable `ORT_DISABLE_TELEMETRY` when the ORT environment is
//   created (first `InferenceSession.create`, via the addon's `initOrtOnce`), not at `require` time.
//   Measured: unset or `0` → telemetry starts; `1` or `true` → none of the files above are touched.
//   Node's `process.env` assignment calls setenv(3), so setting it in-process works.
// We therefore force `ORT_DISABLE_TELEMETRY=1` (overriding any inherited value) before the module
// is even loaded, and load onnxruntime-node only through `loadOnnxRuntime()`.

import type * as OrtModule from 'onnxruntime-node';

export type OnnxRuntime = typeof OrtModule;

export const ORT_TELEMETRY_ENV = 'ORT_DISABLE_TELEMETRY';

/** Sets the switch the native runtime reads; idempotent. */
export function disableOnnxTelemetry(): void {
  process.env[ORT_TELEMETRY_ENV] = '1';
}

let runtime: Promise<OnnxRuntime> | undefined;

/** The only way this lib loads onnxruntime-node: telemetry is disabled first. */
export function loadOnnxRuntime(): Promise<OnnxRuntime> {
  disableOnnxTelemetry();
  runtime ??= import('onnxruntime-node').then((m) => {
    // Silence info/verbose native logs; warnings still reach stderr.
    m.env.logLevel = 'warning';
    return m;
  });
  return runtime;
}
