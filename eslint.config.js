import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import globals from 'globals'

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/', '.tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // One direction of imports: nothing imports the HTTP layer but the entry points and tests.
    files: ['src/domain/**', 'src/db/**', 'src/services/**', 'src/config/**', 'src/carriers/**', 'src/workers/**', 'src/simulator/**', 'src/observability/**', 'src/webhooks/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/http/**', '**/main/**'], message: 'http and main sit on top; import downwards only.' }] }],
    },
  },
  {
    files: ['src/domain/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/http/**', '**/main/**', '**/db/**', '**/services/**', '**/carriers/**', '**/webhooks/**', '**/workers/**', 'pg', 'undici', 'node:fs', 'node:net', 'node:http'], message: 'domain is pure: no I/O, no adapters.' }] }],
    },
  },
)
