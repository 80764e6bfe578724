import { IPC_ERROR_CODES, IPC_EXIT_CODES } from './vault-ipc.errors';
import { parseArslanConfig } from './arslan-config';

describe('the shared TOML config (CFG-2, CFG-6, EGRESS-9)', () => {
  it('accepts the [rag] keys', () => {
    const parsed = parseArslanConfig(
      [
        '[storage]',
        'data_dir = "data"',
        '[rag]',
        'embedder = "remote"',
        'local_model_dir = "models"',
        '[rag.remote]',
        'base_url = "https://api.example.com/v1"',
        'model = "text-embedding-3-small"',
        'dimensions = 1536',
        'api_key_env = "EMBED_KEY"',
        '[rag.generation]',
        'base_url = "http://127.0.0.1:8080/v1"',
        'model = "local"',
      ].join('\n'),
    );
    expect(parsed).toEqual({
      ok: true,
      config: {
        storage: { data_dir: 'data' },
        rag: {
          embedder: 'remote',
          local_model_dir: 'models',
          remote: {
            base_url: 'https://api.example.com/v1',
            model: 'text-embedding-3-small',
            dimensions: 1536,
            api_key_env: 'EMBED_KEY',
          },
          generation: { base_url: 'http://127.0.0.1:8080/v1', model: 'local' },
        },
      },
    });
  });

  it.each([
    ['[rag]\nfoo = 1', 'unknown key rag.foo'],
    ['[rag]\nembedder = "gpt"', 'rag.embedder'],
    ['[rag]\nembedder = "remote"', 'rag.remote'],
    ['[rag.generation]\nbase_url = "https://u:p@x.example/v1"\nmodel = "m"', 'rag.generation.base_url'],
    ['[rag.generation]\nbase_url = "https://x.example/v1"\nmodel = "m"\napi_key = "sk"', 'unknown key'],
    ['[rag.remote]\nbase_url = "https://x/v1"\nmodel = "m"\ndimensions = 0', 'rag.remote.dimensions'],
    ['[rag', 'invalid TOML'],
  ])('rejects %j', (text, problem) => {
    const parsed = parseArslanConfig(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.problem).toContain(problem);
      expect(parsed.problem).not.toContain('sk');
    }
  });

  it('every wire code has a distinct-enough exit code; RAG codes are 17..20', () => {
    for (const code of IPC_ERROR_CODES) expect(IPC_EXIT_CODES[code]).toBeGreaterThan(2);
    expect([
      IPC_EXIT_CODES.index_limit,
      IPC_EXIT_CODES.stale,
      IPC_EXIT_CODES.egress_refused,
      IPC_EXIT_CODES.model_failed,
    ]).toEqual([17, 18, 19, 20]);
  });
});
