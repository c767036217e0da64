// Injected into the CLI's CommonJS builds (scripts/cli-bundle.mjs) for `import.meta.url`, which
// they spell `importMetaUrl.href`: made when first read (by `--version`), not at every start.
export const importMetaUrl = {
  get href() {
    return require('node:url').pathToFileURL(__filename).href
  },
}
