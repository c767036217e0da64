// The plain loop `npm run bench` holds `record` and `verify` to: each path fetched after the one
// before is read, nothing else. Prints the bytes read.
import { readFileSync } from 'node:fs'

const [base, list, key] = process.argv.slice(2)
let bytes = 0
for (const path of JSON.parse(readFileSync(list, 'utf8'))) {
  const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } })
  bytes += (await response.arrayBuffer()).byteLength
}
console.log(bytes)
