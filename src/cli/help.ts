import { DEFAULT_SEED } from '../core/generate.js'
import { MEGABYTE as MB } from '../core/megabytes.js'
import { MAX_BODY_BYTES } from '../contract/budget.js'
import { SERVICE_DEFAULTS } from '../contract/options.js'
import { MIN_REDACTABLE_KEY_LENGTH } from '../contract/redact.js'
import { DEFAULT_HOST, DEFAULT_PORT } from '../server/options.js'
import { DEFAULT_STORE_TIMEOUT_MS } from '../server/replica/store-address.js'
import { DEFAULT_API_KEY } from '../http/options.js'
import { MEMORY_BUDGET } from '../http/memory-budget.js'
import { DEFAULT_KEY_ENV } from './contract-args.js'
import { OPTION_VARIABLES as ENV } from './option-flags.js'
import { ENDPOINT_LIST, listEndpoints } from '../http/endpoints.js'
import { ADMIN_KEY_HEADER_NAME, SESSION_HEADER_NAME } from '../http/header-names.js'
import { PRISM_CODES } from '../http/prefer.js'
import { SCENARIO_KINDS } from '../http/scenario.js'
import {
  describeOption,
  KIND_OPTION_NAMES,
  kindOptionSpec,
  preferSpelling,
  type KindOption,
} from '../http/kind-options.js'
import { valueType } from '../http/option-values.js'

const WIDTH = 80

/** Breaks a line at spaces before `WIDTH` characters, indenting the lines after the first. */
function wrap(line: string, indent: string): string {
  const lines: string[] = []
  let current = ''
  for (const word of line.split(/(?<=\S) (?=\S)/)) {
    if (current !== '' && current.length + 1 + word.length > WIDTH) {
      lines.push(current)
      current = indent + word
    } else current = current === '' ? word : `${current} ${word}`
  }
  return [...lines, current].join('\n')
}

/** A kind option's flag in the scenario flags' list: `--scenario-bytes N  truncated, ...: ...`. */
function optionFlagLine(option: KindOption): string {
  const { flag, value } = kindOptionSpec(option)
  const head = `      ${flag} ${valueType(value).placeholder}`
  return wrap(`${head}  ${describeOption(option)}`, ' '.repeat(21))
}

export const HELP = `Usage: taxonomy-mock [serve] [options]
       taxonomy-mock export [[--seed N] [--size S] | --data FILE] [--out FILE]
                            [--types FILE] [--manifest FILE]
       taxonomy-mock export --from URL --session ID [--data FILE] [--out FILE] ...
       taxonomy-mock validate FILE     every problem of a fixture file, with its JSON path
       taxonomy-mock help              this text
       taxonomy-mock verify --target URL --discipline SLUG... [--crawl N]
                            [--report FILE] [--junit FILE]
       taxonomy-mock record --target URL --discipline SLUG... --out FILE [--all]

A mock of the Academic Taxonomy Lookup Service (${listEndpoints((endpoint) => `GET /api/v2/${endpoint.collection}/:slug`, 'and', '\n')}), answered from deterministic seeded data.

Serve options:
  -p, --port N       port to listen on; 0 picks a free one   (default ${DEFAULT_PORT}, env ${ENV.port})
      --host H       interface to bind                       (default ${DEFAULT_HOST},
                                                              env ${ENV.host})
      --seed N       dataset seed                            (default ${DEFAULT_SEED}, env ${ENV.seed})
      --size S       small | medium | large                  (default medium)
      --api-key K    accepted Bearer key; repeatable         (default ${DEFAULT_API_KEY},
                                                              env ${ENV.apiKeys}=k1,k2)
      --any-key      accept any non-empty Bearer key
      --data FILE    serve a fixture v1 file instead of generated data
      --watch        with --data: reload the file when it changes, through symbolic links
                     (a ConfigMap mount); an invalid one is reported, the previous data kept
      --delay MS     wait before every answer but /__health  (default 0);
                     with --scenario delay: the default session's scenario's delay alone
      --no-cors      send no CORS headers
      --unauthorized-status N   status of the key error        (default 401)
      --not-found-status N      status of the not-found error  (default 404)
      --order O      nested arrays by name | id | fixture    (default name)
      --memory-budget MB   sessions' journals, patches and kept answers, at most;
                     past it, answers are made again when asked for  (default ${MEMORY_BUDGET.default / MB},
                     or half of Node's heap limit when less: a container's memory sets it)
  -q, --quiet        no per-request log lines, no examples
      --exit-on-stdin-end   stop as on SIGTERM once stdin ends: a parent (a test
                     run) that starts the server with a stdin pipe stops it by exiting,
                     killed or crashed too
      --workers N    serve the port from N processes, or auto (one per core); sessions stay
                     exact: the primary owns them  (default 1)
      --store URL    share sessions with other replicas through Redis (rediss:// for TLS):
                     redis://[[USER]:PASSWORD@]HOST[:PORT][/DB][?prefix=NAME][&timeout=MS]
                     (env ${ENV.store}: keeps a password out of the process list);
                     each call to Redis gives up after MS (default ${DEFAULT_STORE_TIMEOUT_MS}), then 503;
                     with --workers, each worker is a replica (docs/deployment.md)
      --upstream URL in front of the real service (key from env TAXONOMY_API_KEY, as
                     verify takes it): a record the data lacks is decided by --on-miss
      --on-miss M    fail: the 404, its journal entry naming the command that captures it;
                     passthrough: the upstream's answer relayed (every lookup without --data);
                     capture: relayed, and the record with its closure added to --data FILE
                     (default passthrough; docs/keeping-honest.md)
      --upstream-timeout MS   each upstream answer, body included, at most;
                     then 502  (default ${SERVICE_DEFAULTS.timeout})
      --tls          serve HTTPS with a self-signed certificate made at start for localhost,
                     loopback, 10.0.2.2 and --host; prints its SHA-256 and SPKI hash and writes
                     it for clients to trust to --tls-ca-out FILE
                     (default: the temp folder's taxonomy-mock-PORT-cert.pem)
      --tls-cert FILE --tls-key FILE   serve HTTPS with this certificate and key (PEM)

Scenarios (error states, faults, delays; docs/scenarios.md):
${wrap(`      --scenario K   the default session's scenario: ${SCENARIO_KINDS.join(', ')}`, ' '.repeat(21))}
                     K1,K2,...: a sequence, one per matching request, then as usual
                     ('usual' for the usual answer: unavailable,unavailable,usual);
                     or a whole scenario as JSON: '{"delay":{"median":80,"p99":400}}'
      --scenario-slug S   only for this slug
      --scenario-times N  only for the next N matching requests, then as usual
${KIND_OPTION_NAMES.map(optionFlagLine).join('\n')}
      --faults SPEC  seeded random faults: rate=0.1,seed=7[,kinds=unavailable+network-error]
      --admin-key K  let other machines use the admin API with this key
                     (${ADMIN_KEY_HEADER_NAME}; env ${ENV.adminKey})
  Per request:     Prefer: scenario=unavailable[, slug=S][, delay=300 | delay=100-500]
                   ${KIND_OPTION_NAMES.map((option) => `[, ${preferSpelling(option)}]`).join('')}
                   (Prism's Prefer: code=${[...PRISM_CODES.keys()].join('|')} too)
  Per session:     header ${SESSION_HEADER_NAME}: ID, or the path /__sessions/ID/api/v2/...
  Admin API:       PUT|GET|DELETE /__admin/sessions/ID/scenario
                   (JSON body {"kind":"unavailable","times":2}),
                   PUT|GET|DELETE /__admin/sessions/ID/data (JSON body: a patch, or
                   {"preset":"empty-children"}: the session's own data; docs/data.md),
                   GET|DELETE /__admin/sessions/ID/requests,
                   GET /__admin/sessions/ID/requests.har (the journal as HAR),
                   PUT|GET|DELETE /__admin/sessions/ID (PUT makes it afresh, so
                   requests refused for their key are journaled in it; DELETE forgets it);
                   without --admin-key: loopback clients only, with a Host that is an IP
                   literal or localhost; ID "default" is everyone else
  Metrics:         GET /__metrics (Prometheus text format; the admin API's clients only):
                   requests by endpoint, status and scenario kind, answer times, delays

Also served, no key needed: GET / (a page listing every record, each linked to its JSON),
GET /__health (readiness), GET /openapi.json (the OpenAPI 3.1 document).
Stop with Ctrl+C, SIGTERM or SIGHUP (or stdin's end, with --exit-on-stdin-end): answers still
owed are sent, then exit 0.

Export options:
      --seed N, --size S   as above
      --data FILE    export this fixture file instead of generated data
  -o, --out FILE     write the fixture JSON here instead of stdout
      --types FILE   write the data's slugs as a .d.ts: DisciplineSlug, SubDisciplineSlug
      --manifest FILE   write the data's identity and the fixture's SHA-256 (JSON)
                     (with --types or --manifest and no --out, no fixture is written)
      --from URL --session ID   a running mock's session: its patch over the server's
                     data (--data FILE: the file the server serves); its admin API takes
                     --admin-key K or env ${ENV.adminKey}

Verify and record (read-only; docs/keeping-honest.md):
      --target URL   the service's base URL (requests go to URL/api/v2/...)
      --api-key-env NAME  variable holding the key, ${MIN_REDACTABLE_KEY_LENGTH}+ characters (default ${DEFAULT_KEY_ENV})
      --api-key K    the key itself (visible to other users of the machine: prefer the variable)
      ${ENDPOINT_LIST.map((endpoint) => `--${endpoint.flag} SLUG`).join(', ')}   where to start; repeatable
      --max-requests N    requests in all, retries included  (default ${SERVICE_DEFAULTS.maxRequests})
      --rate R       requests per second, at most, or unlimited  (default ${SERVICE_DEFAULTS.rate})
      --timeout MS   per answer                              (default ${SERVICE_DEFAULTS.timeout})
      --max-read MB  answers read in all, at most            (default ${SERVICE_DEFAULTS.maxReadBytes / MB})
  verify: --crawl N  up to N more records through children and parents (default ${SERVICE_DEFAULTS.crawl})
          --report FILE  the report as JSON;  --junit FILE  as JUnit XML
          exit 0 no rule failed, 1 a rule failed or the target cannot be reached
  record: --out FILE a closed fixture (format v1.1), written atomically
          --all      record everything reachable (raise --max-requests to fit)
  both:   --target URL/__sessions/ID checks or records a mock's session
          exit 1 past ${MAX_BODY_BYTES / MB} MB an answer, --max-read in all, or ${SERVICE_DEFAULTS.maxTotalWait / 1000} s of Retry-After waits

  -h, --help         this text
  -v, --version      the version

Exit codes: 0 done (serve also after Ctrl+C, SIGTERM or SIGHUP), 1 runtime failure (such as
a port in use; export, validate, verify and record stopped by a signal: one line, partial files
removed), 2 usage error, invalid --data file or a fixture that validate rejects.`
