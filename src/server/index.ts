export { startServer } from './server.js'
export { DEFAULT_HOST, DEFAULT_PORT } from './options.js'
export type { CloseOptions, RunningServer } from './server.js'
export type { RequestLogEntry, StartServerOptions } from './options.js'
