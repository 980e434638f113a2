import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.data/**', 'e2e/artifacts/**', 'playwright-report/**', 'test-results/**', 'ci-logs/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.object.name=/^(it|test|describe)$/][callee.property.name='only']", message: 'no focused tests' },
      ],
    },
  },
  {
    // The typed event maps stay typed in the server: no erasing casts. The exceptions are the two
    // documented Socket.IO hooks, each pinned by its contract test: the socket.io-parser hook
    // (cursorIngress.ts) and bounded volatile delivery (boundedVolatile.ts).
    files: ['apps/server/src/**/*.ts'],
    ignores: ['apps/server/src/realtime/cursorIngress.ts', 'apps/server/src/realtime/boundedVolatile.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'TSAsExpression > TSNeverKeyword.typeAnnotation', message: 'no `as never` in server code: keep the typed maps' },
        {
          selector: 'TSAsExpression[typeAnnotation.type="TSUnknownKeyword"]',
          message: 'no `as unknown as` in server code: keep the typed maps',
        },
      ],
    },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Specs take `test` from e2e/support.ts, whose fixture closes every browser context a test opens.
    files: ['e2e/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@playwright/test',
              importNames: ['test', 'expect'],
              message: "import test and expect from './support.ts': its fixture closes the contexts a test opens",
            },
          ],
        },
      ],
    },
  },
);
