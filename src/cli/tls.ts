// HTTPS for the CLI, in a file of its own (dist/cli/tls.cjs, see scripts/bundle.mjs): main.cjs
// requires it only with a TLS flag, so plain HTTP reads none of the certificate code.
export { prepareTls } from './tls-files.js'
export { findTlsProblem, resolveTls } from '../server/tls.js'
