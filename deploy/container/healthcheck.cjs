// The image's HEALTHCHECK (the image has no shell or curl): GET /__health on the server's port,
// exit 0 on 200, 1 on anything else or no answer within 2 s.
'use strict'
const http = require('node:http')

const port = Number(process.env.TAXONOMY_MOCK_PORT || 4477)
const request = http.get(
  { host: '127.0.0.1', port, path: '/__health', timeout: 2000 },
  (response) => {
    response.resume()
    process.exit(response.statusCode === 200 ? 0 : 1)
  },
)
request.on('timeout', () => request.destroy(new Error('no answer within 2 s')))
request.on('error', () => process.exit(1))
