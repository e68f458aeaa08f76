// @ts-check
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// The 0.1 spellings kept as deprecated aliases, and names defined by the platform or a client.
const DEPRECATED_SPELLINGS = '^(OpenAI[A-Za-z]+|SessionJSON)$';
const PLATFORM_NAMES = '^(toJSON|fromJSON)$';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.tmp/**', '.chatstate/**', 'docs/api/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Layout is Prettier's (npm run format; lint runs prettier --check): no stylistic rule may disagree.
  prettier,
  // Node's globals everywhere but the browser client.
  { ignores: ['src/web/**'], languageOptions: { globals: globals.node } },
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'List public exports by name.' },
        {
          selector: "SpreadElement > LogicalExpression[operator='&&']",
          message: 'Omit a field with `...(value === undefined ? {} : { value })`, the one idiom of this codebase.',
        },
      ],
      // One casing rule: acronyms and brand names are words (JsonValue, OpenaiChatWire, AiSdk).
      // Names the platform or a client defines keep their spelling (toJSON, fromJSON, baseURL).
      '@typescript-eslint/naming-convention': [
        'error',
        { selector: 'typeLike', format: ['StrictPascalCase'], filter: { regex: DEPRECATED_SPELLINGS, match: false } },
        {
          selector: ['function', 'classMethod', 'typeMethod', 'parameter'],
          format: ['strictCamelCase', 'StrictPascalCase'],
          leadingUnderscore: 'allow',
          filter: { regex: PLATFORM_NAMES, match: false },
        },
        {
          selector: 'variable',
          format: ['strictCamelCase', 'StrictPascalCase', 'UPPER_CASE'],
          leadingUnderscore: 'allow',
          filter: { regex: PLATFORM_NAMES, match: false },
        },
      ],
    },
  },
  // The browser client: browser globals only (no Node), and Preact components named in PascalCase.
  {
    files: ['src/web/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
    rules: {
      // Its tsconfig has Node's types (for the API's types, inferred from the server's code): these
      // keep the page's own code off Node all the same.
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['node:*'], message: 'The web client runs in a browser.' }] },
      ],
      'no-restricted-globals': [
        'error',
        ...['Buffer', 'process', 'global', 'require', 'module', '__dirname', '__filename', 'setImmediate'].map(
          (name) => ({ name, message: 'The web client runs in a browser.' }),
        ),
      ],
      '@typescript-eslint/naming-convention': [
        'error',
        { selector: 'typeLike', format: ['StrictPascalCase'] },
        {
          selector: ['function', 'classMethod', 'typeMethod', 'parameter'],
          format: ['strictCamelCase', 'StrictPascalCase'],
          leadingUnderscore: 'allow',
        },
        {
          selector: 'variable',
          format: ['strictCamelCase', 'StrictPascalCase', 'UPPER_CASE'],
          leadingUnderscore: 'allow',
        },
      ],
    },
  },
);
