import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import globals from 'globals'
import importX from 'eslint-plugin-import-x'
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript'

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/', '.tmp/', 'test/client/', 'client/dist/', 'client/src/api.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: globals.node,
      // Typed rules: the type checker's view of every file (tsconfig.json includes them all).
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
      // A promise nobody awaits loses its error: mark a deliberate one with `void`.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      // A switch over a closed union (error codes, statuses, faults) names every member.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    // No import cycles in the service's code: a module's dependencies can be read before it.
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: { ...importX.flatConfigs.typescript.settings, 'import-x/resolver-next': [createTypeScriptImportResolver()] },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // One direction of imports: nothing imports the HTTP layer but the entry points and tests.
    files: [
      'src/domain/**',
      'src/db/**',
      'src/services/**',
      'src/config/**',
      'src/carriers/**',
      'src/workers/**',
      'src/simulator/**',
      'src/observability/**',
      'src/webhooks/**',
    ],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/http/**', '**/main/**'], message: 'http and main sit on top; import downwards only.' }] }],
    },
  },
  {
    // HTTP calls services; it never reaches into the database layer itself.
    files: ['src/http/**'],
    ignores: ['src/http/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/db/**', 'pg'], message: 'http calls services; services use db.' }] }],
    },
  },
  {
    files: ['src/domain/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/http/**',
                '**/main/**',
                '**/db/**',
                '**/services/**',
                '**/carriers/**',
                '**/webhooks/**',
                '**/workers/**',
                'pg',
                'undici',
                'node:fs',
                'node:net',
                'node:http',
              ],
              message: 'domain is pure: no I/O, no adapters.',
            },
          ],
        },
      ],
    },
  },
)
