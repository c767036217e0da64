// The image's HEALTHCHECK (the image has no shell or curl): GET /__health on the server's port,
// exit 0 on 200, 1 on anything else or no answer within 2 s. The port is TAXONOMY_MOCK_PORT's (a
// --port after the image is not seen here). A server started with --tls or --tls-cert answers
// plain HTTP with a 400 that says so: the check then asks again over HTTPS, trusting any
// certificate (it checks that the server answers, on loopback, not who it is).
'use strict'

const port = Number(process.env.TAXONOMY_MOCK_PORT || 4477)
// Both tries together, within the HEALTHCHECK's --timeout of 3 s.
setTimeout(() => process.exit(1), 2000)

/** GET /__health over `scheme`; calls `done` with its status, or 0 when the connection fails. */
function check(scheme, done) {
  require(`node:${scheme}`)
    .get({ host: '127.0.0.1', port, path: '/__health', rejectUnauthorized: false }, (response) => {
      response.resume()
      done(response.statusCode)
    })
    .on('error', () => done(0))
}

check('http', (status) => {
  if (status !== 400) process.exit(status === 200 ? 0 : 1)
  check('https', (secure) => process.exit(secure === 200 ? 0 : 1))
})
