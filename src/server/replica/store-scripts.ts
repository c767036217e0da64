import { createHash } from 'node:crypto'

// The scripts that make each of a replica's steps one atomic call to Redis (store-link.ts calls
// them; its comment lists the keys they read and write).

export const BROADCAST = `
local seq = redis.call('INCR', KEYS[1])
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local live = redis.call('ZRANGEBYSCORE', KEYS[2], ms - tonumber(ARGV[2]), '+inf')
redis.call('PUBLISH', KEYS[3], '{"seq":' .. seq .. ',' .. ARGV[1])
return { seq, live }`

export const HEARTBEAT_SCRIPT = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZADD', KEYS[1], ms, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms - 60000)
return ms`

export const LOCK = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('HMGET', KEYS[2], 'v', 'n')
end
return false`

export const UNLOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('HSET', KEYS[2], 'v', ARGV[2], 'n', ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
  redis.call('DEL', KEYS[1])
  return 1
end
return 0`

export const SAVE_STATE = `
local seq = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
if seq > tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
if ARGV[3] == '' and ARGV[4] == '' then
  redis.call('SREM', KEYS[2], ARGV[6])
  return 1
end
redis.call('HSET', KEYS[1], 'seq', ARGV[1], 'version', ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'scenario', ARGV[3]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'data', ARGV[4]) end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('SADD', KEYS[2], ARGV[6])
return 1`

// A batch of entries and its count; the oldest batches go while the rest still hold `limit`.
export const PUSH = `
redis.call('SET', KEYS[3], ARGV[1], 'NX', 'PX', ARGV[3])
redis.call('RPUSH', KEYS[1], ARGV[5])
redis.call('RPUSH', KEYS[2], ARGV[4])
local counts = redis.call('LRANGE', KEYS[2], 0, -1)
local total = 0
for _, count in ipairs(counts) do total = total + tonumber(count) end
local drop = 0
while drop < #counts - 1 and total - tonumber(counts[drop + 1]) >= tonumber(ARGV[2]) do
  total = total - tonumber(counts[drop + 1])
  drop = drop + 1
end
if drop > 0 then
  redis.call('LTRIM', KEYS[1], drop, -1)
  redis.call('LTRIM', KEYS[2], drop, -1)
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1`

/** Each script's SHA-1, computed once: Redis runs a script it knows by it (`EVALSHA`). */
const SHAS = new Map<string, string>()

export function scriptSha(script: string): string {
  let sha = SHAS.get(script)
  if (sha === undefined) SHAS.set(script, (sha = createHash('sha1').update(script).digest('hex')))
  return sha
}
