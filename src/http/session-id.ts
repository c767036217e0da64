/**
 * A session id: what a path segment and a header both carry unescaped, other than `.` and `..`,
 * which a URL path reads as its own steps (`/__sessions/../api` is `/api` to a `Request`): a
 * session so named would be one transport's only. The one rule, for the server and its clients.
 */
export const SESSION_ID_PATTERN = /^(?!\.\.?$)[A-Za-z0-9._~:@-]{1,200}$/

/** What a session id is, as every message refusing one says it. */
export const SESSION_ID_RULE = '1-200 letters, digits or . _ ~ : @ - characters, not . or ..'
