/**
 * The reason phrase of every status the kit can answer: 200, the preflight's 204, every registered
 * 4xx (`statuses` may pick any 4xx for an error, and the server answers 400, 403, 405, 408, 413,
 * 429 and 431 itself), 500 and 503. The phrases are the ones the server sends on the wire (Node's),
 * so a HAR file says what a client saw.
 */
const STATUS_TEXTS: Readonly<Record<number, string>> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  417: 'Expectation Failed',
  418: "I'm a Teapot",
  421: 'Misdirected Request',
  422: 'Unprocessable Entity',
  423: 'Locked',
  424: 'Failed Dependency',
  425: 'Too Early',
  426: 'Upgrade Required',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  451: 'Unavailable For Legal Reasons',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
}

/** A status's reason phrase; `''` for a status no registry names (a HAR file allows it). */
export function statusTextOf(status: number): string {
  return STATUS_TEXTS[status] ?? ''
}
