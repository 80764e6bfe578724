// Test support: a minimal hand-written ONNX protobuf encoder (no onnx package on this machine).
// Builds ModelProto → GraphProto with `input_ids` int64 [batch, seq] and a Gather from an
// initializer embedding table [vocab, dim] → `token_embeddings` float [batch, seq, dim].
// Field numbers follow onnx/onnx.proto3 (IR version 8, default-domain opset 13).

const WIRE_VARINT = 0;
const WIRE_LEN = 2;

const ELEM_FLOAT = 1;
const ELEM_INT64 = 7;

class ProtoWriter {
  private readonly parts: Uint8Array[] = [];

  private raw(bytes: Uint8Array): void {
    this.parts.push(bytes);
  }

  private varint(value: bigint | number): void {
    let v = BigInt(value);
    if (v < 0n) v = BigInt.asUintN(64, v);
    const out: number[] = [];
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) byte |= 0x80;
      out.push(byte);
    } while (v !== 0n);
    this.raw(Uint8Array.from(out));
  }

  private tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  int(field: number, value: bigint | number): this {
    this.tag(field, WIRE_VARINT);
    this.varint(value);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, WIRE_LEN);
    this.varint(value.length);
    this.raw(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  message(field: number, build: (w: ProtoWriter) => void): this {
    const inner = new ProtoWriter();
    build(inner);
    return this.bytes(field, inner.finish());
  }

  finish(): Uint8Array {
    const total = this.parts.reduce((n, p) => n + p.length, 0);
    const out = new Uint8Array(total);
    let offset = 0;
    for (const p of this.parts) {
      out.set(p, offset);
      offset += p.length;
    }
    return out;
  }
}

type Dim = number | string;

/** ValueInfoProto { name = 1; type = 2 } / TypeProto { tensor_type = 1 } / Tensor { elem_type = 1; shape = 2 }. */
function valueInfo(w: ProtoWriter, field: number, name: string, elemType: number, dims: Dim[]): void {
  w.message(field, (vi) => {
    vi.string(1, name);
    vi.message(2, (type) =>
      type.message(1, (tensor) => {
        tensor.int(1, elemType);
        tensor.message(2, (shape) => {
          for (const d of dims) {
            // TensorShapeProto.Dimension { dim_value = 1; dim_param = 2 }
            shape.message(1, (dim) => (typeof d === 'number' ? dim.int(1, d) : dim.string(2, d)));
          }
        });
      }),
    );
  });
}

/** NodeProto { input = 1; output = 2; name = 3; op_type = 4; attribute = 5 }. */
function node(
  w: ProtoWriter,
  opType: string,
  inputs: string[],
  outputs: string[],
  attrs: { name: string; ints?: number[]; i?: number }[] = [],
): void {
  w.message(1, (n) => {
    for (const i of inputs) n.string(1, i);
    for (const o of outputs) n.string(2, o);
    n.string(3, `${opType}_${outputs[0]}`);
    n.string(4, opType);
    for (const a of attrs) {
      // AttributeProto { name = 1; i = 3; ints = 8; type = 20 (INT = 2, INTS = 7) }
      n.message(5, (attr) => {
        attr.string(1, a.name);
        if (a.ints) {
          for (const v of a.ints) attr.int(8, v);
          attr.int(20, 7);
        } else {
          attr.int(3, a.i ?? 0);
          attr.int(20, 2);
        }
      });
    }
  });
}

export interface TinyEmbeddingModelOptions {
  /** Row-major [vocab][dim] embedding table. */
  table: number[][];
  /** Also emit `sentence_embedding` = ReduceMean over the token axis (unmasked). */
  pooledOutput?: boolean;
  /** Declare an `attention_mask` int64 [batch, seq] input (consumed by an Identity → `mask_echo`). */
  withAttentionMask?: boolean;
}

/** Encodes the tiny Gather embedding model as ONNX protobuf bytes. */
export function buildTinyEmbeddingModel(options: TinyEmbeddingModelOptions): Uint8Array {
  const vocab = options.table.length;
  const dim = options.table[0]?.length ?? 0;
  const raw = new Float32Array(vocab * dim);
  options.table.forEach((row, r) => row.forEach((v, c) => (raw[r * dim + c] = v)));

  const model = new ProtoWriter();
  model.int(1, 8); // ir_version
  model.string(2, 'arslan-test'); // producer_name
  model.message(7, (graph) => {
    node(graph, 'Gather', ['embedding_table', 'input_ids'], ['token_embeddings'], [{ name: 'axis', i: 0 }]);
    if (options.pooledOutput) {
      node(
        graph,
        'ReduceMean',
        ['token_embeddings'],
        ['sentence_embedding'],
        [
          { name: 'axes', ints: [1] },
          { name: 'keepdims', i: 0 },
        ],
      );
    }
    if (options.withAttentionMask) node(graph, 'Identity', ['attention_mask'], ['mask_echo']);
    graph.string(2, 'tiny_embedding');
    // TensorProto { dims = 1; data_type = 2; name = 8; raw_data = 9 }
    graph.message(5, (t) => {
      t.int(1, vocab);
      t.int(1, dim);
      t.int(2, ELEM_FLOAT);
      t.string(8, 'embedding_table');
      t.bytes(9, new Uint8Array(raw.buffer));
    });
    valueInfo(graph, 11, 'input_ids', ELEM_INT64, ['batch', 'seq']);
    if (options.withAttentionMask) valueInfo(graph, 11, 'attention_mask', ELEM_INT64, ['batch', 'seq']);
    valueInfo(graph, 12, 'token_embeddings', ELEM_FLOAT, ['batch', 'seq', dim]);
    if (options.pooledOutput) valueInfo(graph, 12, 'sentence_embedding', ELEM_FLOAT, ['batch', dim]);
    if (options.withAttentionMask) valueInfo(graph, 12, 'mask_echo', ELEM_INT64, ['batch', 'seq']);
  });
  // OperatorSetIdProto { domain = 1; version = 2 }
  model.message(8, (op) => op.string(1, '').int(2, 13));
  return model.finish();
}
