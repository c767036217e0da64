// The kit's MSW handlers served over HTTP by @mswjs/http-middleware (an express app), as its README
// shows. Usage: node msw-server.mjs PORT
import { createServer } from '@mswjs/http-middleware'
import { createHandlers } from 'taxonomy-mock/msw'

const server = createServer(...createHandlers()).listen(Number(process.argv[2]), '127.0.0.1')
process.on('SIGTERM', () => server.close(() => process.exit(0)))
