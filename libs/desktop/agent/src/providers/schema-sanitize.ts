// PROV-10: MCP tool schemas are rewritten into a form each provider accepts; built-in schemas are
// sent unchanged. Inputs are never mutated.
import type { JsonSchema, ToolSpec } from '../ports/model.port';

export type SchemaTarget = 'openai-compatible' | 'anthropic' | 'gemini';

type Obj = Record<string, unknown>;

const isObj = (value: unknown): value is Obj => !!value && typeof value === 'object' && !Array.isArray(value);

/** The schema a provider receives for one tool. */
export function toolSchemaFor(tool: ToolSpec, target: SchemaTarget): JsonSchema {
  return tool.source === 'mcp' ? sanitizeToolSchema(tool.inputSchema, target) : tool.inputSchema;
}

export function sanitizeToolSchema(schema: JsonSchema, target: SchemaTarget): JsonSchema {
  const defs = {
    ...(isObj(schema['$defs']) ? schema['$defs'] : {}),
    ...(isObj(schema['definitions']) ? schema['definitions'] : {}),
  };
  return target === 'gemini' ? geminiRoot(schema, defs) : jsonSchemaRoot(schema);
}

// ---- OpenAI-compatible and Anthropic: JSON Schema with an object root ----------------------------

function jsonSchemaRoot(schema: JsonSchema): JsonSchema {
  const out: Obj = structuredClone(schema);
  delete out['$schema'];
  delete out['$id'];
  // Root-level combinators are refused (OpenAI): fold object branches into the root.
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = out[key];
    if (!Array.isArray(branches)) continue;
    delete out[key];
    for (const branch of branches) {
      if (!isObj(branch) || !isObj(branch['properties'])) continue;
      out['properties'] = { ...(isObj(out['properties']) ? out['properties'] : {}), ...branch['properties'] };
      if (key === 'allOf' && Array.isArray(branch['required'])) {
        out['required'] = [
          ...new Set([...(Array.isArray(out['required']) ? out['required'] : []), ...branch['required']]),
        ];
      }
    }
  }
  delete out['not'];
  delete out['enum'];
  delete out['const'];
  out['type'] = 'object';
  if (!isObj(out['properties'])) out['properties'] = {};
  return out;
}

// ---- Gemini: the OpenAPI 3.0 subset of `FunctionDeclaration.parameters` ------------------------

const GEMINI_KEYS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'items',
  'properties',
  'required',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'anyOf',
  'propertyOrdering',
]);
const GEMINI_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
const GEMINI_FORMATS: Record<string, Set<string>> = {
  string: new Set(['enum', 'date-time']),
  number: new Set(['float', 'double']),
  integer: new Set(['int32', 'int64']),
};
const MAX_DEPTH = 12;

function geminiRoot(schema: JsonSchema, defs: Obj): JsonSchema {
  const out = gemini({ ...schema, type: 'object' }, defs, 0);
  delete out['nullable'];
  return out;
}

function resolveRef(ref: unknown, defs: Obj): Obj | undefined {
  if (typeof ref !== 'string') return undefined;
  const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref);
  const target = match?.[1] ? defs[match[1]] : undefined;
  return isObj(target) ? target : undefined;
}

function gemini(input: Obj, defs: Obj, depth: number): Obj {
  let schema = input;
  const resolved = resolveRef(schema['$ref'], defs);
  if (resolved) schema = { ...resolved, ...schema, $ref: undefined };
  if (depth > MAX_DEPTH) return { type: 'string', description: describe(schema) };

  const out: Obj = {};
  // const → a one-value enum
  if (schema['const'] !== undefined && schema['enum'] === undefined)
    schema = { ...schema, enum: [schema['const']] };

  // Union types: ['string', 'null'] → string + nullable; several non-null types → the first.
  let type = schema['type'];
  if (Array.isArray(type)) {
    const nonNull = type.filter((t) => t !== 'null');
    if (nonNull.length < type.length) out['nullable'] = true;
    type = nonNull[0];
  }

  // oneOf/anyOf: a null branch becomes `nullable`; a single remaining branch is inlined.
  const union = Array.isArray(schema['anyOf'])
    ? schema['anyOf']
    : Array.isArray(schema['oneOf'])
      ? schema['oneOf']
      : undefined;
  if (union) {
    const branches = union.filter(isObj).filter((b) => b['type'] !== 'null');
    if (branches.length < union.length) out['nullable'] = true;
    if (branches.length === 1 && branches[0]) {
      const inner = gemini(
        { ...branches[0], description: schema['description'] ?? branches[0]['description'] },
        defs,
        depth + 1,
      );
      return { ...inner, ...(out['nullable'] ? { nullable: true } : {}) };
    }
    if (branches.length > 1) {
      out['anyOf'] = branches.map((b) => gemini(b, defs, depth + 1));
      if (typeof schema['description'] === 'string') out['description'] = schema['description'];
      return out;
    }
  }
  // allOf: merged into one schema
  if (Array.isArray(schema['allOf'])) {
    const merged: Obj = { ...schema, allOf: undefined };
    for (const part of schema['allOf'].filter(isObj)) {
      const branch = resolveRef(part['$ref'], defs) ?? part;
      if (isObj(branch['properties'])) {
        merged['properties'] = {
          ...(isObj(merged['properties']) ? merged['properties'] : {}),
          ...branch['properties'],
        };
      }
      if (Array.isArray(branch['required'])) {
        merged['required'] = [
          ...(Array.isArray(merged['required']) ? merged['required'] : []),
          ...branch['required'],
        ];
      }
      if (merged['type'] === undefined && branch['type'] !== undefined) merged['type'] = branch['type'];
    }
    return gemini(merged, defs, depth);
  }

  if (typeof type !== 'string' || !GEMINI_TYPES.has(type)) {
    type = isObj(schema['properties'])
      ? 'object'
      : schema['items'] !== undefined
        ? 'array'
        : type === 'null'
          ? 'string'
          : Array.isArray(schema['enum'])
            ? 'string'
            : 'string';
  }
  out['type'] = type;

  for (const [key, value] of Object.entries(schema)) {
    if (!GEMINI_KEYS.has(key) || value === undefined || key === 'type' || key === 'anyOf') continue;
    switch (key) {
      case 'format': {
        if (typeof value === 'string' && GEMINI_FORMATS[type as string]?.has(value)) out['format'] = value;
        break;
      }
      case 'enum': {
        if (Array.isArray(value) && value.length > 0) {
          const values = value.filter((v) => v !== null);
          if (values.every((v) => typeof v === 'string')) out['enum'] = values;
          else if (values.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) {
            // Gemini enums are strings only: keep the values visible in the description instead.
            out['description'] = [
              schema['description'],
              `One of: ${values.map((v) => JSON.stringify(v)).join(', ')}`,
            ]
              .filter(Boolean)
              .join(' ');
          }
        }
        break;
      }
      case 'properties': {
        if (!isObj(value)) break;
        const props: Obj = {};
        for (const [name, prop] of Object.entries(value)) {
          props[name] = isObj(prop) ? gemini(prop, defs, depth + 1) : { type: 'string' };
        }
        if (Object.keys(props).length > 0) out['properties'] = props;
        break;
      }
      case 'items': {
        const item = Array.isArray(value) ? value.find(isObj) : value;
        out['items'] = isObj(item) ? gemini(item, defs, depth + 1) : { type: 'string' };
        break;
      }
      case 'required': {
        if (Array.isArray(value)) out['required'] = value;
        break;
      }
      default:
        if (!(key === 'description' && out['description'] !== undefined)) out[key] = value;
    }
  }
  if (type === 'array' && out['items'] === undefined) out['items'] = { type: 'string' };
  if (Array.isArray(out['required'])) {
    const props = isObj(out['properties']) ? out['properties'] : {};
    const required = [...new Set(out['required'] as unknown[])].filter(
      (n): n is string => typeof n === 'string' && n in props,
    );
    if (required.length > 0) out['required'] = required;
    else delete out['required'];
  }
  if (type !== 'object') {
    delete out['properties'];
    delete out['required'];
  }
  return out;
}

function describe(schema: Obj): string {
  return typeof schema['description'] === 'string' ? schema['description'] : 'JSON value';
}
