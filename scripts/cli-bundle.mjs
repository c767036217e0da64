// The CLI's CommonJS files in dist/cli/, as scripts/bundle.mjs builds them: one place for their
// esbuild options, which test/dist.test.ts builds again (with esbuild's metafile, not written) to
// read which source modules each file holds.

import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../', import.meta.url))

/**
 * The CLI, for bin/: CommonJS, in dist/cli/. Node 20 starts the same code as a CommonJS program
 * about 10 ms sooner than as ES modules, and one file sooner than several (spawn to first
 * 200). So `serve` and all it uses are one file, main.cjs, and the other commands another,
 * commands.cjs, which main.cjs requires when one of them is run. HTTPS (the certificate code,
 * node:tls) is a third, tls.cjs, required only with a TLS flag, and `--store` (the replica code
 * and the Redis client) a fourth, store.cjs, and `--upstream` (the relay and the contract code it
 * captures with) a fifth, upstream.cjs. Each file has its own copy of
 * the code they share (src/cli/commands.ts reports its own failures for that reason), and the CLI
 * shares no module state with a program that imports the package.
 */
const cliCommandsApart = {
  name: 'cli-commands-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/commands\.js$/ }, () => ({
      path: './commands.cjs',
      external: true,
    }))
    // The dynamic imports of src/cli/serve.ts and src/server/server.ts; src/cli/tls.ts exports both.
    build.onResolve({ filter: /^\.\/tls(-files)?\.js$/, namespace: 'file' }, ({ kind }) =>
      kind === 'dynamic-import' ? { path: './tls.cjs', external: true } : undefined,
    )
    // `serve --store`: the replica code and the Redis client it requires.
    build.onResolve({ filter: /^\.\/store\.js$/, namespace: 'file' }, ({ kind }) =>
      kind === 'dynamic-import' ? { path: './store.cjs', external: true } : undefined,
    )
    // `serve --upstream`: the relay and the contract code it captures with.
    build.onResolve({ filter: /^\.\/upstream\.js$/, namespace: 'file' }, ({ kind }) =>
      kind === 'dynamic-import' ? { path: './upstream.cjs', external: true } : undefined,
    )
  },
}
/**
 * What every CommonJS build of the CLI shares, these files and the single executable's one
 * (scripts/build-binary.mjs): `require` for `import()` too (in CommonJS, `import()` goes through
 * Node's ES module loader; a single executable's `require` reaches Node's builtins only), and
 * `import.meta.url` (src/cli/version.ts) as CommonJS spells it, in the same file.
 */
export const NODE_COMMONJS = {
  absWorkingDir: ROOT,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'es2022',
  supported: { 'dynamic-import': false },
  inject: ['scripts/import-meta-url.js'],
  define: { 'import.meta.url': 'importMetaUrl.href' },
  legalComments: 'none',
  logLevel: 'warning',
}

/** The CLI's files by name (dist/cli/NAME.cjs, from src/cli/NAME.ts). */
export const CLI_FILES = ['main', 'commands', 'tls', 'store', 'upstream']

/**
 * esbuild's options for one CLI file. Minified: Node reads and V8 takes the code cache of main.cjs
 * at every start (414 KB with short names kept, 274 KB without: about 2% of the CPU to a first
 * answer), and a comment's `§` made the whole file a two-byte string. The CLI tells its errors by
 * their `name` fields, never by a class's or a function's own name, and prints no stack.
 */
export function cliBuildOptions(name) {
  return {
    ...NODE_COMMONJS,
    entryPoints: { [name]: `src/cli/${name}.ts` },
    outdir: 'dist/cli',
    outExtension: { '.js': '.cjs' },
    packages: 'external',
    minify: true,
    plugins: name === 'main' ? [cliCommandsApart] : [],
  }
}
