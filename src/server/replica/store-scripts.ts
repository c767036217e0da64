import { createHash } from 'node:crypto'
import type { CommandParser } from '@redis/client'

// The scripts that make each of a replica's steps one atomic call to Redis (store-link.ts calls
// them; its comment lists the keys they read and write).

/**
 * An admin write: the session's state changed under a new version (`P:v`, never reused), kept
 * while it holds a scenario or data, and a notice on the changes channel, in the same step. A
 * scenario is saved with when it was set (`set`, milliseconds on Redis' clock): its `ttl` counts
 * from then on every replica. The notice carries the writer's number for the write (`ARGV[6]`),
 * which the replicas that hear it confirm, on the channel `ARGV[7]` (an argument, not a key: an
 * ACL user's key patterns need not cover `P@N:changes`); the reply is how many subscribed to the channel (the
 * writer too): not `PUBLISH`'s count, which counts a pattern's subscribers (`PSUBSCRIBE *`, a
 * Redis GUI's), who confirm nothing.
 */
const WRITE = `
local v = redis.call('INCR', KEYS[1])
local op = ARGV[1]
if op == 'createSession' or op == 'deleteSession' then
  redis.call('DEL', KEYS[3], KEYS[4])
elseif op == 'setScenario' then
  local now = redis.call('TIME')
  local at = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  redis.call('HSET', KEYS[3], 'scenario', ARGV[3], 'n', 0, 'set', at)
  redis.call('DEL', KEYS[4])
elseif op == 'clearScenario' then
  redis.call('HDEL', KEYS[3], 'scenario', 'n', 'set')
  redis.call('DEL', KEYS[4])
elseif op == 'setData' then
  redis.call('HSET', KEYS[3], 'data', ARGV[3])
elseif op == 'clearData' then
  redis.call('HDEL', KEYS[3], 'data')
end
if redis.call('HEXISTS', KEYS[3], 'scenario') == 1 or redis.call('HEXISTS', KEYS[3], 'data') == 1 then
  redis.call('HSET', KEYS[3], 'v', v)
  redis.call('PEXPIRE', KEYS[3], ARGV[4])
  redis.call('SADD', KEYS[2], ARGV[2])
else
  redis.call('DEL', KEYS[3])
  redis.call('SREM', KEYS[2], ARGV[2])
end
redis.call('PUBLISH', ARGV[7], '{"op":"' .. op .. '","session":"' .. ARGV[2] .. '","from":"' .. ARGV[5] .. '","write":' .. ARGV[6] .. '}')
return redis.call('PUBSUB', 'NUMSUB', ARGV[7])[2]`

/**
 * A request's position in its session's scenario: `{-1}` when the replica's copy is not the
 * version Redis holds (it fetches it and answers afresh); `{-2}` when a request without a key
 * finds a `sequence` step or a drawn fault that applies only after the key (it takes none); `{-3,
 * N}` when a request without a key gave no phase for N, the position held (the replica draws at N
 * and asks again); else the position,
 * `1` if the count held was malformed (it starts again), and a quota's reading: limited, what is
 * left, seconds to the window's end.
 */
const STEP = `
local v = redis.call('HGET', KEYS[1], 'v') or '0'
if v ~= ARGV[1] then return {-1} end
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
local malformed = 0
if n == nil or n < 0 or n ~= math.floor(n) or n >= 9007199254740992 then n = 0; malformed = 1 end
if string.sub(ARGV[2], 1, 1) == '=' then
  local at, phases = string.match(ARGV[2], '^=(%d+):([01]+)$')
  local ahead = n - tonumber(at)
  if ahead < 0 or ahead >= #phases then return {-3, n} end
  if string.sub(phases, ahead + 1, ahead + 1) ~= '1' then return {-2} end
elseif ARGV[2] ~= '' then
  local steps, total, again = {}, 0, false
  for part in string.gmatch(ARGV[2], '[^,]+') do
    if part == 'r' then again = true else
      local times, before = string.match(part, '^(%d+):(%d)$')
      steps[#steps + 1] = { tonumber(times), before == '1' }
      total = total + tonumber(times)
    end
  end
  local at = n
  if again then at = n % total end
  local before = false
  for _, step in ipairs(steps) do
    if at < step[1] then before = step[2]; break end
    at = at - step[1]
  end
  if not before then return {-2} end
end
redis.call('HSET', KEYS[1], 'n', n + 1)
if ARGV[3] == '' then return { n, malformed } end
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local limit, window = tonumber(ARGV[3]), tonumber(ARGV[4])
local bucket = redis.call('HGET', KEYS[2], ARGV[5])
local start, used = ms, 0
if bucket then
  local s, u = string.match(bucket, '^(%d+) (%d+)$')
  s, u = tonumber(s), tonumber(u)
  -- A window that starts later than now, or a count past the limit, is none replicas write.
  if s and s <= ms and ms - s < window and u <= limit then start, used = s, u end
elseif redis.call('HLEN', KEYS[2]) >= 1000 then
  redis.call('DEL', KEYS[2])
end
local limited = 0
if used >= limit then limited = 1 else used = used + 1 end
redis.call('HSET', KEYS[2], ARGV[5], start .. ' ' .. used)
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return { n, malformed, limited, limit - used, math.max(1, math.ceil((window - (ms - start)) / 1000)) }`

/**
 * A replica's state of a session, saved again after the store lost its data (a restart without
 * persistence), unless another replica saved it first; a notice on the changes channel, as a
 * write gives, so that a replica that fetched the session before (and found nothing) fetches it.
 * The scenario's `set` is `ARGV[6]` milliseconds ago, as the replica's copy counted; the channel
 * is `ARGV[7]`, as the write's.
 */
const RESTORE = `
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local v = redis.call('INCR', KEYS[1])
redis.call('HSET', KEYS[3], 'v', v, 'n', 0)
if ARGV[2] ~= '' then
  local now = redis.call('TIME')
  local at = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  redis.call('HSET', KEYS[3], 'scenario', ARGV[2], 'set', at - tonumber(ARGV[6]))
end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[3], 'data', ARGV[3]) end
redis.call('PEXPIRE', KEYS[3], ARGV[4])
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('PUBLISH', ARGV[7], '{"op":"restore","session":"' .. ARGV[1] .. '","from":"' .. ARGV[5] .. '"}')
return v`

/**
 * A session's saved state, `{v, scenario, data, set}` as HMGET gives it, and Redis' clock now (in
 * milliseconds, as `set`); or, when a field holds more than `ARGV[1]` bytes (more than any replica
 * writes), `{field, bytes}` instead: a reply that large would pass Redis' output buffer limit for
 * the replica's connection, which it then cuts; or `{'type', TYPE}` when the key is no hash
 * (another program's): reading it would be refused, and start-up, which reads every session, with
 * it. A session whose state has expired (its `ttl`) leaves the sessions' set (`KEYS[2]`), so that
 * the set, which every start reads, does not grow.
 */
const FETCH = `
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then redis.call('SREM', KEYS[2], ARGV[2])
elseif kind ~= 'hash' then return {'type', kind} end
for _, field in ipairs({'v', 'scenario', 'data', 'set'}) do
  local bytes = redis.call('HSTRLEN', KEYS[1], field)
  if bytes > tonumber(ARGV[1]) then return {field, bytes} end
end
local state = redis.call('HMGET', KEYS[1], 'v', 'scenario', 'data', 'set')
local now = redis.call('TIME')
state[5] = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
return state`

/**
 * A page of the sessions' set (`SSCAN` from cursor `ARGV[2]`, about `ARGV[4]` members): the next
 * cursor, the members no longer than `ARGV[1]` bytes (a session id's most) whose state `ARGV[3]`
 * `{ID}` is saved or that are no session id (the replica counts them), and how many are longer:
 * `{cursor, members, others}`. A session whose state is gone (expired) leaves the set, as the
 * fetch script takes it out: a set of a million such ids costs one start its pages, not a fetch
 * each at every start. The id's characters are `SESSION_ID_PATTERN`'s (sessions.ts).
 */
const SESSIONS = `
local page = redis.call('SSCAN', KEYS[1], ARGV[2], 'COUNT', ARGV[4])
local kept, others = {}, 0
for _, id in ipairs(page[2]) do
  if #id > tonumber(ARGV[1]) then others = others + 1
  elseif not string.find(id, '^[%w%._~:@%-]+$') or redis.call('EXISTS', ARGV[3] .. '{' .. id .. '}') == 1 then
    kept[#kept + 1] = id
  else redis.call('SREM', KEYS[1], id) end
end
return {page[1], kept, others}`

/** The last version given (`P:v`); `{bytes}` when it holds more than `ARGV[1]` bytes. */
const LAST_VERSION = `
local bytes = redis.call('STRLEN', KEYS[1])
if bytes > tonumber(ARGV[1]) then return {bytes} end
return redis.call('GET', KEYS[1])`

/**
 * A script as the client runs it, `client.NAME(keys, args)`: by its SHA-1 (`EVALSHA`), and by its
 * text once more when Redis has forgotten it (a restart).
 */
const script = (SCRIPT: string) => ({
  SCRIPT,
  parseCommand(parser: CommandParser, keys: readonly string[], args: readonly string[]) {
    parser.push(String(keys.length))
    for (const key of keys) parser.pushKey(key)
    parser.push(...args)
  },
  transformReply: (reply: unknown) => reply,
})

/** The scripts, for the client's `scripts` option (each through its `defineScript`). */
export const SCRIPTS = {
  write: script(WRITE),
  step: script(STEP),
  restore: script(RESTORE),
  fetch: script(FETCH),
  sessions: script(SESSIONS),
  lastVersion: script(LAST_VERSION),
}

/**
 * An error reply raised inside one of these scripts, with the commands its line runs and the
 * script's name added: Redis names only the script's SHA-1 and line (`script: SHA, on
 * @user_script:27.`), not the command an ACL user lacks or `rename-command` took away.
 */
export function withScriptCommand(message: string): string {
  const [, sha, line] = /script: ([0-9a-f]{40}), on @user_script:(\d+)\.\s*$/.exec(message) ?? []
  const name = (Object.keys(SCRIPTS) as ScriptName[]).find((key) => shaOf(key) === sha)
  if (name === undefined) return message
  const text = SCRIPTS[name].SCRIPT.split('\n')[Number(line) - 1] ?? ''
  const commands = [...text.matchAll(/redis\.call\('(\w+)'/g)].map(([, command]) => command)
  if (commands.length === 0) return message
  return `${message.trimEnd()}; ${commands.join(' or ')} in the replicas' ${name} script`
}

/**
 * A script's SHA-1, as Redis names it: hashed when an error reply first asks, not as the module
 * loads (the client's `defineScript` hashes each script for itself at start).
 */
function shaOf(name: ScriptName): string {
  return (scriptShas[name] ??= createHash('sha1').update(SCRIPTS[name].SCRIPT).digest('hex'))
}
const scriptShas: Partial<Record<ScriptName, string>> = {}

type ScriptName = keyof typeof SCRIPTS
