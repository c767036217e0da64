// A json-server 0.17 middleware (--middlewares): the spec's 401 for a missing or wrong key.
// json-server pretty-prints its answers (express "json spaces" 2); the kit sends compact JSON, so
// the same bytes need compact output, which only a middleware can ask for.
// The kit's documented default key.
const AUTHORIZATION = 'Bearer taxonomy-mock-key'

module.exports = (request, response, next) => {
  request.app.set('json spaces', 0)
  if (request.get('authorization') !== AUTHORIZATION) {
    response.status(401).json({ error: 'Invalid or missing API key' })
    return
  }
  next()
}
