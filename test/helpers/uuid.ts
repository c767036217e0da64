/** What the generator's ids look like: RFC 4122 version 4, lower case (`src/core/ids.ts`). */
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
