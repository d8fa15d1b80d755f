// @ts-check
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/*
 * Boundaries. Each folder of src/core is a subsystem whose public surface is
 * its index.ts: other folders import that, never a file inside. Commands and
 * renderers likewise go through the index files. A subsystem's faults.ts is a
 * leaf (types, importing only other faults.ts files), which core/faults.ts and
 * errors.ts import directly: scripts/structure.mjs fails on an import circle
 * between parts (npm test), and draws the layers (--draw).
 */
const throughIndex = (prefix) => ({
  group: [`${prefix}*/*`, `!${prefix}*/index.js`, `!${prefix}*/faults.js`, '!../../version.js'],
  message: 'import another subsystem through its index.js, its public surface',
});

/* A command runs a stage through core/stage's entries (runInfer, runJudge): the orchestration stays in core. */
const stagesThroughCore = {
  group: ['../../core/runner/*', '../../core/infer/*', '../../core/judge/*'],
  message: "run a stage through core/stage's entries (runInfer, runJudge) and tell its display; its types are exported there too",
};

/* Heavy packages that most commands never use are loaded with import() where they are needed. */
const loadedLazily = {
  group: ['gpt-tokenizer', 'gpt-tokenizer/*'],
  message: "load the tokenizer with import() where it is used: a static import puts its tables in every command's memory",
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.bench/', 'results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setImmediate: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        performance: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        Response: 'readonly',
        Request: 'readonly',
        Headers: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        fetch: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'error',
      // With verbatimModuleSyntax, `import { type X }` would be emitted as a bare `import 'module'`.
      '@typescript-eslint/no-import-type-side-effects': 'error',
    },
  },
  {
    files: ['src/core/*/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [throughIndex('../'), loadedLazily] }] },
  },
  {
    // A subsystem may group its files in folders; they reach the rest of core from one level deeper.
    files: ['src/core/*/*/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [throughIndex('../../'), loadedLazily] }] },
  },
  ...[
    { files: 'src/core/{agreement,score,compare,bias,drift,report,merge,output,rows,dataset,rubrics,schemas}/*.ts', up: '../' },
    // A subsystem's folders reach the rest of core from one level deeper.
    { files: 'src/core/{agreement,score,compare,bias,drift,report,merge,output,rows,dataset,rubrics,schemas}/*/**/*.ts', up: '../../' },
  ].map(({ files, up }) => ({
    // Reading files of results never needs an endpoint: these load no openai client.
    files: [files],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            throughIndex(up),
            loadedLazily,
            {
              group: ['openai', 'openai/*', ...['endpoints', 'infer', 'judge', 'runner', 'stage'].map((part) => `${up}${part}/*`)],
              message:
                'agreement, score, report, merge and the readers load no endpoint client: import what they share from rubrics/, rows/ or schemas/',
            },
          ],
        },
      ],
    },
  })),
  {
    files: ['src/core/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [throughIndex('./'), loadedLazily] }] },
  },
  {
    files: ['src/render/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [throughIndex('../core/'), loadedLazily] }] },
  },
  {
    files: ['src/render/*/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [throughIndex('../../core/'), loadedLazily] }] },
  },
  {
    files: ['src/commands/*/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [throughIndex('../../core/'), loadedLazily, stagesThroughCore] }] },
  },
  {
    files: ['src/commands/*/*/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [throughIndex('../../../core/'), loadedLazily] }] },
  },
  {
    // The entry point is CommonJS (bin/package.json), to require() the CLI where Node can.
    files: ['bin/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The report page's script runs in the browser.
    files: ['assets/**/*.js'],
    languageOptions: {
      globals: {
        document: 'readonly',
        window: 'readonly',
        location: 'readonly',
        atob: 'readonly',
        performance: 'readonly',
        requestAnimationFrame: 'readonly',
        setTimeout: 'readonly',
        ReadableStream: 'readonly',
        DecompressionStream: 'readonly',
      },
    },
  },
  {
    files: ['test/**/*.ts'],
    // Tests check what reaches a terminal, escape sequences included.
    rules: { 'no-control-regex': 'off' },
  },
  {
    // Core's tests call core and assert kinds and results; a test that runs the CLI lives under test/commands/.
    files: ['test/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/support/cli.js', '**/src/cli.js', '**/dist/**'],
              message: 'core tests never run the CLI: put this test under test/commands/, mirroring the command',
            },
          ],
        },
      ],
    },
  },
  {
    // Core never prints or exits: it returns values and throws errors.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'exit', message: 'core never exits: throw a UserError' },
        { object: 'process', property: 'stdout', message: 'core never prints' },
        { object: 'process', property: 'stderr', message: 'core never prints' },
      ],
    },
  },
);
