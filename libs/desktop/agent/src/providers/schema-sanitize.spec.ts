import { sanitizeToolSchema, toolSchemaFor } from './schema-sanitize';

const mcpSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  additionalProperties: false,
  $defs: {
    Owner: { type: 'object', properties: { login: { type: 'string', default: 'me' } }, required: ['login'] },
  },
  properties: {
    url: { type: 'string', format: 'uri', description: 'Where' },
    when: { type: 'string', format: 'date-time' },
    mode: { enum: ['a', 'b'] },
    level: { enum: [1, 2, 3], type: 'integer' },
    kind: { const: 'fixed' },
    maybe: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    either: { oneOf: [{ type: 'string' }, { type: 'number' }] },
    tags: { type: 'array' },
    owner: { $ref: '#/$defs/Owner' },
    multi: { type: ['string', 'number'] },
    ratio: { type: 'number', exclusiveMinimum: 0, examples: [0.5] },
  },
  required: ['url', 'ghost'],
};

describe('sanitizeToolSchema (PROV-10)', () => {
  it('Gemini: keeps the accepted OpenAPI subset', () => {
    expect(sanitizeToolSchema(mcpSchema, 'gemini')).toEqual({
      type: 'object',
      properties: {
        url: { type: 'string', description: 'Where' },
        when: { type: 'string', format: 'date-time' },
        mode: { type: 'string', enum: ['a', 'b'] },
        level: { type: 'integer', description: 'One of: 1, 2, 3' },
        kind: { type: 'string', enum: ['fixed'] },
        maybe: { type: 'string', nullable: true },
        either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        tags: { type: 'array', items: { type: 'string' } },
        owner: { type: 'object', properties: { login: { type: 'string' } }, required: ['login'] },
        multi: { type: 'string' },
        ratio: { type: 'number' },
      },
      required: ['url'],
    });
  });

  it('OpenAI / Anthropic: strips $schema and guarantees an object root; keeps the rest', () => {
    for (const target of ['openai-compatible', 'anthropic'] as const) {
      const out = sanitizeToolSchema({ $schema: 'x', properties: { a: { type: 'string' } } }, target);
      expect(out).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
      const full = sanitizeToolSchema(mcpSchema, target);
      expect(full).not.toHaveProperty('$schema');
      expect(full['properties']).toEqual(mcpSchema.properties);
    }
  });

  it('folds root-level combinators into the object root', () => {
    expect(
      sanitizeToolSchema(
        {
          anyOf: [
            { type: 'object', properties: { a: { type: 'string' } } },
            { type: 'object', properties: { b: { type: 'number' } } },
          ],
        },
        'openai-compatible',
      ),
    ).toEqual({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } } });
  });

  it('does not mutate its input and leaves built-in schemas unchanged', () => {
    const before = JSON.stringify(mcpSchema);
    sanitizeToolSchema(mcpSchema, 'gemini');
    sanitizeToolSchema(mcpSchema, 'anthropic');
    expect(JSON.stringify(mcpSchema)).toBe(before);
    const builtin = { name: 't', description: '', inputSchema: mcpSchema, source: 'builtin' as const };
    expect(toolSchemaFor(builtin, 'gemini')).toBe(mcpSchema);
  });

  it('survives recursive $refs', () => {
    const recursive = {
      type: 'object',
      $defs: { N: { type: 'object', properties: { next: { $ref: '#/$defs/N' } } } },
      properties: { n: { $ref: '#/$defs/N' } },
    };
    expect(() => JSON.stringify(sanitizeToolSchema(recursive, 'gemini'))).not.toThrow();
  });
});
