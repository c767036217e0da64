import { DEFAULT_PORT } from '../server/options.js'
import { DEFAULT_API_KEY } from '../http/options.js'

export const HELP = `Usage: taxonomy-mock [serve] [options]
       taxonomy-mock export [--seed N] [--size S] [--out FILE]

A mock of the Academic Taxonomy Lookup Service (GET /api/v2/disciplines/:slug and
GET /api/v2/sub_disciplines/:slug), answered from deterministic seeded data.

Serve options:
  -p, --port N       port to listen on; 0 picks a free one   (default ${DEFAULT_PORT}, env TAXONOMY_MOCK_PORT)
      --host H       interface to bind                       (default 127.0.0.1)
      --seed N       dataset seed                            (default 42, env TAXONOMY_MOCK_SEED)
      --size S       small | medium | large                  (default medium)
      --api-key K    accepted Bearer key; repeatable         (default ${DEFAULT_API_KEY},
                                                              env TAXONOMY_MOCK_API_KEYS=k1,k2)
      --any-key      accept any non-empty Bearer key
      --data FILE    serve a fixture v1 file instead of generated data
      --delay MS     wait before every answer                (default 0)
      --no-cors      send no CORS headers
  -q, --quiet        no per-request log lines, no examples

Export options:
      --seed N, --size S   as above
  -o, --out FILE     write the fixture JSON here instead of stdout

  -h, --help         this text
  -v, --version      the version

Exit codes: 0 done (also after Ctrl+C or SIGTERM), 1 runtime failure (such as a port
in use), 2 usage error or invalid --data file.`
