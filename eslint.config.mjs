// Lint: typescript-eslint + Nx module boundaries with the real constraints of
// ../shared/design/ARCHITECTURE.md (docs/adr/0001-monorepo-layout.md explains each one).
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import routePolicy from './tools/eslint/route-policy.rule.mjs';

const depConstraints = [
  // type: what a kind of project may build on
  {
    sourceTag: 'type:app',
    onlyDependOnLibsWithTags: ['type:feature', 'type:data-access', 'type:domain', 'type:util', 'type:ui'],
  },
  {
    sourceTag: 'type:feature',
    onlyDependOnLibsWithTags: ['type:feature', 'type:data-access', 'type:domain', 'type:util', 'type:ui'],
  },
  {
    sourceTag: 'type:data-access',
    onlyDependOnLibsWithTags: ['type:data-access', 'type:domain', 'type:util'],
  },
  { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', 'type:util'] },
  { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'] },
  { sourceTag: 'type:ui', onlyDependOnLibsWithTags: ['type:ui', 'type:domain', 'type:util'] },
  {
    sourceTag: 'type:testing',
    onlyDependOnLibsWithTags: ['type:domain', 'type:util', 'type:data-access', 'type:testing'],
  },
  // platform: code that must run in a browser or phone never pulls in Node-only code
  { sourceTag: 'platform:any', onlyDependOnLibsWithTags: ['platform:any'] },
  { sourceTag: 'platform:browser', onlyDependOnLibsWithTags: ['platform:any', 'platform:browser'] },
  { sourceTag: 'platform:node', onlyDependOnLibsWithTags: ['platform:any', 'platform:node'] },
  // scope: the Center and the Mac client never import each other
  { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
  { sourceTag: 'scope:center', onlyDependOnLibsWithTags: ['scope:center', 'scope:shared'] },
  { sourceTag: 'scope:desktop', onlyDependOnLibsWithTags: ['scope:desktop', 'scope:shared'] },
  { sourceTag: 'scope:phone', onlyDependOnLibsWithTags: ['scope:phone', 'scope:shared'] },
  {
    sourceTag: 'scope:tools',
    onlyDependOnLibsWithTags: ['scope:shared', 'scope:center', 'scope:desktop', 'scope:phone', 'scope:tools'],
  },
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/coverage/**',
      '.nx/**',
      '**/*.cjs',
      '**/vectors/**',
      'libs/center/data-access/src/generated/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mjs'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          banTransitiveDependencies: false,
          checkDynamicDependenciesExceptions: [],
          depConstraints,
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ExportAllDeclaration',
          message: 'One public entry per lib: export names explicitly, never `export *`.',
        },
      ],
    },
  },
  {
    // type:testing libs (builders, vector loaders) are for spec files only.
    files: ['**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@arslan/testing', '@arslan/testing/*', '@arslan/*-testing'],
              message: 'type:testing libs may only be imported from *.spec.ts files.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // Issue 6: every Center route / WebSocket handler carries @Public, @AdminRoute or @ContentRoute.
    files: ['apps/center/src/**/*.ts'],
    plugins: { arslan: routePolicy },
    rules: { 'arslan/require-route-policy': 'error' },
  },
  prettier,
);
