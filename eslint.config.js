import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // console/ is the browser page served as it is; generated/ is written by scripts/openapi-sdk.ts.
  { ignores: ['**/dist/', '**/node_modules/', 'console/', 'sdk/src/generated/', 'test/client/generated/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        projectService: { allowDefaultProject: ['vitest.fleet.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Fastify hooks, plugins and Promise-returning interfaces are written async so that a throw becomes a rejection, with or without an await.
      '@typescript-eslint/require-await': 'off',
      // A leading underscore and a rest sibling are how the code drops a parameter or a field on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // Kysely's migrations take Kysely<any>, as a migration must not depend on the schema of today.
    files: ['src/db/migrations/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Tests read JSON answers (typed any) and check their shape with expect, which is the check a type would give.
    files: ['test/**/*.ts', 'sdk/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Test servers take async request handlers: vitest fails the run on a rejection such a handler leaves unhandled.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
    },
  },
  {
    // Plain JavaScript files are outside the TypeScript project.
    files: ['**/*.mjs', '**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  prettier,
);
