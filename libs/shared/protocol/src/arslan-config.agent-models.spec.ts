import { parseArslanConfig } from './arslan-config';

const BASE = [
  '[agent]',
  'provider = "openai-compatible"',
  'base_url = "http://127.0.0.1:8080/v1"',
  'model = "local"',
];

describe('[agent] models and roles (PROV-04, PROV-05, ARCH-11)', () => {
  it('PROV-04: the single [agent] table alone stays valid (backwards compatible)', () => {
    const parsed = parseArslanConfig(BASE.join('\n'));
    expect(parsed).toEqual({
      ok: true,
      config: {
        agent: { provider: 'openai-compatible', base_url: 'http://127.0.0.1:8080/v1', model: 'local' },
      },
    });
  });

  it('PROV-04/05: named [[agent.models]] and [agent.roles] naming them (or "default")', () => {
    const parsed = parseArslanConfig(
      [
        ...BASE,
        '[agent.roles]',
        'main = "default"',
        'summary = "cheap"',
        '[[agent.models]]',
        'name = "cheap"',
        'provider = "anthropic"',
        'model = "claude-haiku"',
        'api_key_env = "ANTHROPIC_API_KEY"',
      ].join('\n'),
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.config.agent?.models).toEqual([
      { name: 'cheap', provider: 'anthropic', model: 'claude-haiku', api_key_env: 'ANTHROPIC_API_KEY' },
    ]);
    expect(parsed.config.agent?.roles).toEqual({ main: 'default', summary: 'cheap' });
  });

  it.each([
    [
      'an inline key (ARCH-11)',
      ['[[agent.models]]', 'name = "x"', 'provider = "gemini"', 'model = "g"', 'api_key = "sk-1"'],
    ],
    [
      'a key env that is not a variable name',
      ['[[agent.models]]', 'name = "x"', 'provider = "gemini"', 'model = "g"', 'api_key_env = "sk-live-1"'],
    ],
    [
      'a URL with credentials',
      [
        '[[agent.models]]',
        'name = "x"',
        'provider = "gemini"',
        'model = "g"',
        'base_url = "https://u:p@h.example"',
      ],
    ],
    ['a duplicate name', ['[[agent.models]]', 'name = "default"', 'provider = "gemini"', 'model = "g"']],
    ['a role naming no model', ['[agent.roles]', 'summary = "missing"']],
    ['an unknown role', ['[agent.roles]', 'planner = "default"']],
    ['a bad name', ['[[agent.models]]', 'name = "Has Space"', 'provider = "gemini"', 'model = "g"']],
  ])('PROV-05: refuses %s without echoing values', (_what, lines) => {
    const parsed = parseArslanConfig([...BASE, ...lines].join('\n'));
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problem).not.toContain('sk-');
    expect(parsed.problem).not.toContain('u:p@');
  });
});
