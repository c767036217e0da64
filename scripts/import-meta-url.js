// Injected into the CLI's CommonJS build (scripts/bundle.mjs) for `import.meta.url`.
export const importMetaUrl = require('node:url').pathToFileURL(__filename).href
