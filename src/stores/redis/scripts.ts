/**
 * The Lua scripts of the Redis store. Every operation is one script, so that it runs atomically
 * on the server — across every process that shares the Redis — and a read sees one consistent
 * state of a session. Scripts are sent with `EVALSHA` and re-sent with `EVAL` when the server does
 * not know them (after a restart or `SCRIPT FLUSH`).
 *
 * Key layout, under the script's base `P` (ids never contain `:`, and every kind starts with its
 * own two characters, so no id can make one kind of key collide with another). On one server `P`
 * is the store's prefix; on Redis Cluster it is the prefix and the hash tag of one of 64 buckets,
 * `<prefix>{<n>}:`, so every key below lives in that bucket's slot (see `layout.ts`):
 *
 * - `P s:<id>:h` — the head: a hash of the `HeadRecord` fields
 * - `P s:<id>:m` — a sorted set of message ids scored by `seq` (idempotency and range reads)
 * - `P s:<id>:d` — a hash message id → encoded message
 * - `P x:all`, `P u:<userId>`, `P a:<agentId>` — sorted sets of session ids scored by
 *   `-updatedAt` (ms), so that ascending order is newest first with ties by id, like every store
 * - `P x:exp` — a sorted set of session ids scored by `expiresAt`, for `purgeExpired`
 * - `P x:ou`, `P x:oa` — session id → userId / agentId of sessions that expire: once Redis has
 *   expired a head, this is how its entries in the per-user and per-agent indexes are found
 * - `P v:<ns>` — active memory's values of namespace `ns` (built by the core): a hash key → data
 * - `P s:<id>:v` — the set of namespaces that belong to session `id`, deleted with it by `remove`
 *   and `purgeExpired` (not by `replace`, and not expired by Redis with the session's other keys)
 *
 * Every script takes its base as `ARGV[1]` and builds its keys from it: the indexes a write touches
 * depend on the stored head, which only the script reads. On one server a script declares no
 * `KEYS`; on Redis Cluster it declares one key of its bucket (`KEYS[1]`, never read), so the client
 * sends it to that slot's node, and Redis refuses any key of another slot.
 * @module
 */
import { createHash } from 'node:crypto';
import { VECTOR_KEY_PREFIX as VECTOR_PREFIX } from '../../store/values.js';

/** A script and its SHA-1, the name `EVALSHA` knows it by. */
export interface Script {
  readonly name: string;
  readonly source: string;
  readonly sha: string;
}

// Shared by every script. Numbers go back to Redis as strings formatted with %.0f: Lua's default
// number formatting switches to exponent notation past 14 digits.
const PRELUDE = `
local P = ARGV[1]
local function skey(id, kind) return P .. 's:' .. id .. ':' .. kind end
local function int(n) return string.format('%.0f', n) end
local function count(s)
  if type(s) == 'string' and string.match(s, '^%d+$') then return tonumber(s) end
  return nil
end
-- The data of messages listed as {id, seq, ...}, in that order, fetched 500 per HMGET (unpack's limit).
local function messageData(id, ids)
  local data = {}
  local names = {}
  for i = 1, #ids, 2 do
    names[#names + 1] = ids[i]
    if #names == 500 or i + 1 == #ids then
      local part = redis.call('HMGET', skey(id, 'd'), unpack(names))
      for j = 1, #part do data[#data + 1] = part[j] end
      names = {}
    end
  end
  return data
end
local function unindex(id, userId, agentId)
  redis.call('ZREM', P .. 'x:all', id)
  redis.call('ZREM', P .. 'x:exp', id)
  redis.call('HDEL', P .. 'x:ou', id)
  redis.call('HDEL', P .. 'x:oa', id)
  if userId then redis.call('ZREM', P .. 'u:' .. userId, id) end
  if agentId then redis.call('ZREM', P .. 'a:' .. agentId, id) end
end
local function index(id, userId, agentId, updatedMs, expiresAt)
  local score = int(-updatedMs)
  redis.call('ZADD', P .. 'x:all', score, id)
  if userId then redis.call('ZADD', P .. 'u:' .. userId, score, id) end
  if agentId then redis.call('ZADD', P .. 'a:' .. agentId, score, id) end
  if expiresAt then
    redis.call('ZADD', P .. 'x:exp', int(expiresAt), id)
    if userId then redis.call('HSET', P .. 'x:ou', id, userId) end
    if agentId then redis.call('HSET', P .. 'x:oa', id, agentId) end
  end
end
local function owner(id)
  return redis.call('HGET', P .. 'x:ou', id), redis.call('HGET', P .. 'x:oa', id)
end
local function drop(id)
  redis.call('DEL', skey(id, 'h'), skey(id, 'm'), skey(id, 'd'))
end
local function dropValues(id)
  local spaces = skey(id, 'v')
  for _, ns in ipairs(redis.call('SMEMBERS', spaces)) do redis.call('DEL', P .. 'v:' .. ns) end
  redis.call('DEL', spaces)
end
`;

// ARGV: P, id. The head hash as a flat field/value list (empty when there is none).
const READ_HEAD = `
return redis.call('HGETALL', skey(ARGV[2], 'h'))
`;

// ARGV: P, id. {head, {id, seq, ...}, {data, ...}} or nil.
const READ_ALL = `
local id = ARGV[2]
local head = redis.call('HGETALL', skey(id, 'h'))
if #head == 0 then return false end
local ids = redis.call('ZRANGE', skey(id, 'm'), 0, -1, 'WITHSCORES')
local data = messageData(id, ids)
return {head, ids, data}
`;

// ARGV: P, id, afterSeq|'', beforeSeq|'', limit|'', now|''.
// {{id, seq, ...}, {data, ...}, descending} | nil | {'CORRUPT', field}.
// With a limit the window is read backwards from its end, so a tail read costs O(log n + limit).
// A session whose expiresAt is at or before `now` (the caller's clock) reads as absent. The head
// fields the read depends on are checked, as the append script checks its own.
const READ_RANGE = `
local id = ARGV[2]
local h = skey(id, 'h')
if redis.call('EXISTS', h) == 0 then return false end
local f = redis.call('HMGET', h, 'version', 'expiresAt')
if not count(f[1]) then return {'CORRUPT', 'version'} end
if f[2] then
  local e = count(f[2])
  if not e then return {'CORRUPT', 'expiresAt'} end
  if ARGV[6] ~= '' and e <= tonumber(ARGV[6]) then return false end
end
local low, high = '-inf', '+inf'
if ARGV[3] ~= '' then low = '(' .. ARGV[3] end
if ARGV[4] ~= '' then high = '(' .. ARGV[4] end
local ids, descending
if ARGV[5] ~= '' then
  ids = redis.call('ZREVRANGEBYSCORE', skey(id, 'm'), high, low, 'WITHSCORES', 'LIMIT', 0, ARGV[5])
  descending = 1
else
  ids = redis.call('ZRANGEBYSCORE', skey(id, 'm'), low, high, 'WITHSCORES')
  descending = 0
end
local data = messageData(id, ids)
return {ids, data, descending}
`;

// ARGV: P, now, then per ref: id, seq (every id of this script's bucket).
// {'OK', {messageId|'', data|'', ...}} (two entries per ref, '' where nothing is) | {'CORRUPT', id, field}.
// A session whose expiresAt is at or before `now` reads as absent, as in READ_RANGE; each session's
// head is read once.
const READ_AT = `
local now = tonumber(ARGV[2])
local live = {}
local out = {}
for i = 3, #ARGV, 2 do
  local id, seq = ARGV[i], ARGV[i + 1]
  local ok = live[id]
  if ok == nil then
    ok = false
    local h = skey(id, 'h')
    if redis.call('EXISTS', h) == 1 then
      local f = redis.call('HMGET', h, 'version', 'expiresAt')
      if not count(f[1]) then return {'CORRUPT', id, 'version'} end
      ok = true
      if f[2] then
        local e = count(f[2])
        if not e then return {'CORRUPT', id, 'expiresAt'} end
        if e <= now then ok = false end
      end
    end
    live[id] = ok
  end
  local messageId, data = '', ''
  if ok then
    local found = redis.call('ZRANGEBYSCORE', skey(id, 'm'), seq, seq, 'LIMIT', 0, 1)
    if #found == 1 then
      messageId = found[1]
      data = redis.call('HGET', skey(id, 'd'), messageId) or ''
    end
  end
  out[#out + 1] = messageId
  out[#out + 1] = data
end
return {'OK', out}
`;

// ARGV: P, id, expectedVersion|'', updatedAt, updatedMs, data|'', now|'', checkKeys '1'|'0', expectedKeys, nextKeys,
// kind ('' unchanged, '=' removed, '=<kind>' set), n, then per message: id, data, tokens, title|''.
// {'OK', version, {id, seq, ...}, {duplicate ids}} | {'NOT_FOUND'} | {'KEYS', stored key check} | {'CONFLICT', version} | {'CORRUPT', field}.
// The head arithmetic of driver-helpers' appendToHead, done where it is atomic. A session whose
// expiresAt is at or before `now` (the caller's clock) is absent, even before Redis expires its keys.
const APPEND = `
local id = ARGV[2]
local h, m, d = skey(id, 'h'), skey(id, 'm'), skey(id, 'd')
if redis.call('EXISTS', h) == 0 then return {'NOT_FOUND'} end
local f = redis.call('HMGET', h, 'version', 'lastSeq', 'messageCount', 'tokenCount', 'title', 'ttlMs', 'userId', 'agentId', 'expiresAt', 'keyCheck')
if ARGV[7] ~= '' and f[9] then
  local e = count(f[9])
  if not e then return {'CORRUPT', 'expiresAt'} end
  if e <= tonumber(ARGV[7]) then return {'NOT_FOUND'} end
end
local version, lastSeq, messages, tokens = count(f[1]), count(f[2]), count(f[3]), count(f[4])
if not version then return {'CORRUPT', 'version'} end
if not lastSeq then return {'CORRUPT', 'lastSeq'} end
if not messages then return {'CORRUPT', 'messageCount'} end
if not tokens then return {'CORRUPT', 'tokenCount'} end
local ttl = nil
if f[6] then
  ttl = count(f[6])
  if not ttl then return {'CORRUPT', 'ttlMs'} end
end
-- The key check (store/key-check.ts): a writer whose keys could not read the session back writes nothing.
if ARGV[8] == '1' and (f[10] or '') ~= ARGV[9] then return {'KEYS', f[10] or ''} end
if ARGV[3] ~= '' and tonumber(ARGV[3]) ~= version then return {'CONFLICT', int(version)} end
local title = f[5]
local seq = lastSeq
local added, duplicates = {}, {}
local n = tonumber(ARGV[12])
for i = 0, n - 1 do
  local at = 13 + i * 4
  local mid = ARGV[at]
  if redis.call('ZSCORE', m, mid) then
    duplicates[#duplicates + 1] = mid
  else
    seq = seq + 1
    redis.call('ZADD', m, int(seq), mid)
    redis.call('HSET', d, mid, ARGV[at + 1])
    tokens = tokens + tonumber(ARGV[at + 2])
    messages = messages + 1
    if not title and ARGV[at + 3] ~= '' then title = ARGV[at + 3] end
    added[#added + 1] = mid
    added[#added + 1] = int(seq)
  end
end
if #added == 0 then return {'OK', int(version), added, duplicates} end
version = version + 1
local updatedMs = tonumber(ARGV[5])
redis.call('HSET', h, 'version', int(version), 'updatedAt', ARGV[4], 'messageCount', int(messages),
  'tokenCount', int(tokens), 'lastSeq', int(seq))
if title then redis.call('HSET', h, 'title', title) end
if ARGV[10] ~= '' then redis.call('HSET', h, 'keyCheck', ARGV[10]) end
-- The state the append replaces (metadata, variables, usage) lands with its messages.
if ARGV[6] ~= '' then redis.call('HSET', h, 'data', ARGV[6]) end
if ARGV[11] ~= '' then
  local kind = string.sub(ARGV[11], 2)
  if kind == '' then redis.call('HDEL', h, 'kind') else redis.call('HSET', h, 'kind', kind) end
end
local expiresAt = nil
if ttl then
  expiresAt = updatedMs + ttl
  redis.call('HSET', h, 'expiresAt', int(expiresAt))
  for _, key in ipairs({h, m, d}) do redis.call('PEXPIRE', key, int(math.max(ttl, 1))) end
else
  -- A fixed expiry: the message keys this append may have created expire with the head.
  local left = redis.call('PTTL', h)
  if left > 0 then
    redis.call('PEXPIRE', m, left)
    redis.call('PEXPIRE', d, left)
  end
  local e = redis.call('HGET', h, 'expiresAt')
  if e then expiresAt = count(e) end
end
index(id, f[7], f[8], updatedMs, expiresAt)
return {'OK', int(version), added, duplicates}
`;

// ARGV: P, id, expectedVersion|'', updatedMs, expiresAt|'', expireInMs|'', userId|'', agentId|'',
// checkKeys '1'|'0', expectedKeys, k, k head field/value pairs, n, then per message: seq, id, data.
// {'OK'} | {'KEYS', stored key check} | {'CONFLICT', version} | {'CORRUPT', field}.
const REPLACE = `
local id = ARGV[2]
local h, m, d = skey(id, 'h'), skey(id, 'm'), skey(id, 'd')
local exists = redis.call('EXISTS', h) == 1
if exists and ARGV[9] == '1' then
  local stored = redis.call('HGET', h, 'keyCheck') or ''
  if stored ~= ARGV[10] then return {'KEYS', stored} end
end
if ARGV[3] ~= '' then
  local actual = 0
  if exists then
    actual = count(redis.call('HGET', h, 'version'))
    if not actual then return {'CORRUPT', 'version'} end
  end
  if actual ~= tonumber(ARGV[3]) then return {'CONFLICT', int(actual)} end
end
if exists then
  local old = redis.call('HMGET', h, 'userId', 'agentId')
  unindex(id, old[1], old[2])
else
  unindex(id, owner(id))
end
drop(id)
local k = tonumber(ARGV[11])
local fields = {}
for i = 12, 11 + k * 2 do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', h, unpack(fields))
local at = 12 + k * 2
local n = tonumber(ARGV[at])
at = at + 1
local scores, bodies = {}, {}
for i = 0, n - 1 do
  local base = at + i * 3
  scores[#scores + 1] = ARGV[base]
  scores[#scores + 1] = ARGV[base + 1]
  bodies[#bodies + 1] = ARGV[base + 1]
  bodies[#bodies + 1] = ARGV[base + 2]
  if #scores == 1000 or i == n - 1 then
    redis.call('ZADD', m, unpack(scores))
    redis.call('HSET', d, unpack(bodies))
    scores, bodies = {}, {}
  end
end
local userId, agentId, expiresAt = ARGV[7], ARGV[8], nil
if userId == '' then userId = nil end
if agentId == '' then agentId = nil end
if ARGV[5] ~= '' then expiresAt = tonumber(ARGV[5]) end
index(id, userId, agentId, tonumber(ARGV[4]), expiresAt)
if ARGV[6] ~= '' then
  for _, key in ipairs({h, m, d}) do redis.call('PEXPIRE', key, ARGV[6]) end
end
return {'OK'}
`;

// ARGV: P, id, expectedVersion, afterSeq, updatedMs, expiresAt|'', expireInMs|'', k, k head field/value
// pairs, n, then per message: seq, id, data.
// {'OK'} | {'NOT_FOUND'} | {'CONFLICT', version} | {'REUSED', message id} | {'CORRUPT', field}.
// The messages after afterSeq go, the new ones and the core's head are written: the cost is the tail's.
const TAIL = `
local id = ARGV[2]
local h, m, d = skey(id, 'h'), skey(id, 'm'), skey(id, 'd')
if redis.call('EXISTS', h) == 0 then return {'NOT_FOUND'} end
local f = redis.call('HMGET', h, 'version', 'userId', 'agentId')
local version = count(f[1])
if not version then return {'CORRUPT', 'version'} end
if version ~= tonumber(ARGV[3]) then return {'CONFLICT', int(version)} end
local k = tonumber(ARGV[8])
local at = 9 + k * 2
local n = tonumber(ARGV[at])
at = at + 1
-- Ids stay unique in a session: a new message may not take the id of one that stays.
for i = 0, n - 1 do
  local score = redis.call('ZSCORE', m, ARGV[at + i * 3 + 1])
  if score and tonumber(score) <= tonumber(ARGV[4]) then return {'REUSED', ARGV[at + i * 3 + 1]} end
end
local gone = redis.call('ZRANGEBYSCORE', m, '(' .. ARGV[4], '+inf')
for i = 1, #gone, 500 do
  redis.call('HDEL', d, unpack(gone, i, math.min(i + 499, #gone)))
end
redis.call('ZREMRANGEBYSCORE', m, '(' .. ARGV[4], '+inf')
unindex(id, f[2], f[3])
redis.call('DEL', h)
local fields = {}
for i = 9, 8 + k * 2 do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', h, unpack(fields))
for i = 0, n - 1 do
  local base = at + i * 3
  redis.call('ZADD', m, ARGV[base], ARGV[base + 1])
  redis.call('HSET', d, ARGV[base + 1], ARGV[base + 2])
end
local expiresAt = nil
if ARGV[6] ~= '' then expiresAt = tonumber(ARGV[6]) end
index(id, f[2], f[3], tonumber(ARGV[5]), expiresAt)
if ARGV[7] ~= '' then
  for _, key in ipairs({h, m, d}) do redis.call('PEXPIRE', key, ARGV[7]) end
else
  for _, key in ipairs({h, m, d}) do redis.call('PERSIST', key) end
end
return {'OK'}
`;

// ARGV: P, now, offset, limit, userId|'', agentId|'', afterScore|'', afterId|'', expired '1'|'', idPrefix|'',
// kinds ('' every session, '-' those without a kind, ',<kind>,<kind>,' those of these kinds).
// {{id, head}, ...}: the matching heads, paged. Index entries whose head Redis has already expired
// are skipped, and so are those whose expiry has passed (or, with expired, those whose has not).
// The cursor (afterScore, the negated ms of its updatedAt, and afterId) starts the scan at the
// first entry after it: past every lower score, then past the ids at or before afterId among the
// entries of its very score, found by a binary search over their ranks (Redis orders members of
// equal score by their bytes).
const LIST = `
local now, offset, limit = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local userId, agentId = ARGV[5], ARGV[6]
local expired = ARGV[9] == '1'
local prefix = ARGV[10]
local kinds = ARGV[11] or ''
local key = P .. 'x:all'
if userId ~= '' then key = P .. 'u:' .. userId elseif agentId ~= '' then key = P .. 'a:' .. agentId end
local function field(head, name)
  for i = 1, #head, 2 do if head[i] == name then return head[i + 1] end end
  return nil
end
-- Byte order, as Redis orders members: Lua's own string comparison follows the server's locale.
local function bytesAtMost(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a <= #b
end
local start = 0
if ARGV[7] ~= '' then
  local score, afterId = ARGV[7], ARGV[8]
  start = redis.call('ZCOUNT', key, '-inf', '(' .. score)
  local stop = start + redis.call('ZCOUNT', key, score, score)
  while start < stop do
    local middle = math.floor((start + stop) / 2)
    if bytesAtMost(redis.call('ZRANGE', key, middle, middle)[1], afterId) then start = middle + 1 else stop = middle end
  end
end
local out = {}
local batch = math.min(math.max(offset + limit, 64), 1000)
while #out < limit do
  local ids = redis.call('ZRANGE', key, start, start + batch - 1)
  if #ids == 0 then break end
  start = start + #ids
  for _, id in ipairs(ids) do
    local head = redis.call('HGETALL', skey(id, 'h'))
    if #head > 0 then
      local e = tonumber(field(head, 'expiresAt'))
      local ended = e ~= nil and e <= now
      local mine = (userId == '' or field(head, 'userId') == userId) and (agentId == '' or field(head, 'agentId') == agentId)
        and (prefix == '' or string.sub(id, 1, #prefix) == prefix)
      if mine and kinds ~= '' then
        local kind = field(head, 'kind')
        if kinds == '-' then mine = kind == nil
        else mine = kind ~= nil and string.find(kinds, ',' .. kind .. ',', 1, true) ~= nil end
      end
      if ended == expired and mine then
        if offset > 0 then offset = offset - 1 else out[#out + 1] = {id, head} end
        if #out >= limit then break end
      end
    end
  end
end
return out
`;

// ARGV: P, now, userId. Per live session of the user, one string: id, version, createdAt,
// messageCount, tokenCount and userId joined by tabs (no id, date or count holds one). A
// missing field is left empty (the driver reports the session damaged).
const MARKS = `
local now, userId = tonumber(ARGV[2]), ARGV[3]
local out = {}
for _, id in ipairs(redis.call('ZRANGE', P .. 'u:' .. userId, 0, -1)) do
  local h = skey(id, 'h')
  if redis.call('EXISTS', h) == 1 then
    local f = redis.call('HMGET', h, 'expiresAt', 'version', 'createdAt', 'messageCount', 'tokenCount', 'userId')
    local e = tonumber(f[1])
    if e == nil or e > now then
      out[#out + 1] = table.concat({id, f[2] or '', f[3] or '', f[4] or '', f[5] or '', f[6] or ''}, '\t')
    end
  end
end
return out
`;

// ARGV: P, id. 1 when a session was deleted, 0 when there was none.
const REMOVE = `
local id = ARGV[2]
local h = skey(id, 'h')
if redis.call('EXISTS', h) == 1 then
  local f = redis.call('HMGET', h, 'userId', 'agentId')
  unindex(id, f[1], f[2])
  drop(id)
  dropValues(id)
  return 1
end
-- Redis may have expired the keys already: only the index entries and values are left to clear.
unindex(id, owner(id))
drop(id)
dropValues(id)
return 0
`;

// ARGV: P, now, batch, id prefix ('' for every id), offset. {purged, examined, skipped}: one batch
// of sessions whose expiry is at or before now, from the offset-th. Ids outside the prefix stay in
// the index where they were (skipped): the caller's next offset counts them.
const PURGE = `
local now = tonumber(ARGV[2])
local prefix = ARGV[4]
local ids = redis.call('ZRANGEBYSCORE', P .. 'x:exp', '-inf', ARGV[2], 'LIMIT', tonumber(ARGV[5]), tonumber(ARGV[3]))
local purged = 0
local skipped = 0
for _, id in ipairs(ids) do
  local h = skey(id, 'h')
  if prefix ~= '' and string.sub(id, 1, #prefix) ~= prefix then
    skipped = skipped + 1
  elseif redis.call('EXISTS', h) == 1 then
    local f = redis.call('HMGET', h, 'expiresAt', 'userId', 'agentId')
    local e = count(f[1])
    if e and e <= now then
      unindex(id, f[2], f[3])
      drop(id)
      dropValues(id)
      purged = purged + 1
    elseif e then
      -- The index disagrees with the head: the head wins, and the next batch moves on.
      redis.call('ZADD', P .. 'x:exp', int(e), id)
    else
      redis.call('ZREM', P .. 'x:exp', id)
    end
  else
    -- Expired by Redis already; the session is gone, its index entries and values go now.
    unindex(id, owner(id))
    drop(id)
    dropValues(id)
    purged = purged + 1
  end
end
return {int(purged), int(#ids), int(skipped)}
`;

// ARGV: P, ns, n|'' (all keys), then n keys. {key, data, ...}: the values found.
const READ_VALUES = `
local key = P .. 'v:' .. ARGV[2]
if ARGV[3] == '' then return redis.call('HGETALL', key) end
local out = {}
for i = 1, tonumber(ARGV[3]) do
  local data = redis.call('HGET', key, ARGV[3 + i])
  if data then
    out[#out + 1] = ARGV[3 + i]
    out[#out + 1] = data
  end
end
return out
`;

// ARGV: P, ns, sessionId|'', n, then per entry: 's' key data | 'd' key ''. 'OK'.
// A namespace of a session is listed in the session's set while it holds values, so that
// removing the session finds it.
const WRITE_VALUES = `
local ns = ARGV[2]
local key = P .. 'v:' .. ns
for i = 0, tonumber(ARGV[4]) - 1 do
  local at = 5 + i * 3
  if ARGV[at] == 's' then redis.call('HSET', key, ARGV[at + 1], ARGV[at + 2]) else redis.call('HDEL', key, ARGV[at + 1]) end
end
if ARGV[3] ~= '' then
  if redis.call('EXISTS', key) == 1 then redis.call('SADD', skey(ARGV[3], 'v'), ns) else redis.call('SREM', skey(ARGV[3], 'v'), ns) end
end
return 'OK'
`;

// ARGV: P, userId, batch. {id, existed, messages, sessionValues, vectors, ...}: one batch of the
// user's sessions (from their index, expired ones too), each removed with its values, as REMOVE
// does. An index entry whose head names another user is only dropped from this user's index.
const FORGET_SESSIONS = `
local user = ARGV[2]
local ids = redis.call('ZRANGE', P .. 'u:' .. user, 0, tonumber(ARGV[3]) - 1)
local out = {}
for _, id in ipairs(ids) do
  local h = skey(id, 'h')
  local existed = redis.call('EXISTS', h)
  local userId, agentId
  if existed == 1 then
    local f = redis.call('HMGET', h, 'userId', 'agentId')
    userId, agentId = f[1], f[2]
  else
    userId, agentId = owner(id)
  end
  redis.call('ZREM', P .. 'u:' .. user, id)
  if userId == user then
    local messages = redis.call('ZCARD', skey(id, 'm'))
    local values, vectors = 0, 0
    for _, ns in ipairs(redis.call('SMEMBERS', skey(id, 'v'))) do
      for _, key in ipairs(redis.call('HKEYS', P .. 'v:' .. ns)) do
        values = values + 1
        if string.sub(key, 1, ${VECTOR_PREFIX.length}) == '${VECTOR_PREFIX}' then vectors = vectors + 1 end
      end
    end
    unindex(id, userId, agentId)
    drop(id)
    dropValues(id)
    out[#out + 1] = id
    out[#out + 1] = existed
    out[#out + 1] = messages
    out[#out + 1] = values
    out[#out + 1] = vectors
  end
end
return {#ids, out}
`;

// ARGV: P, cursor, count, pattern, ns. {cursor, values}: deletes namespace ns (when given) and one
// SCAN step's keys matching the pattern that lie under P (a node also holds other buckets' keys).
const FORGET_VALUES = `
local values = 0
if ARGV[5] ~= '' then
  local key = P .. 'v:' .. ARGV[5]
  values = values + redis.call('HLEN', key)
  redis.call('DEL', key)
end
local found = redis.call('SCAN', ARGV[2], 'MATCH', ARGV[4], 'COUNT', tonumber(ARGV[3]))
for _, key in ipairs(found[2]) do
  if string.sub(key, 1, #P) == P then
    values = values + redis.call('HLEN', key)
    redis.call('DEL', key)
  end
end
return {found[1], values}
`;

function script(name: string, body: string): Script {
  const source = PRELUDE + body;
  return Object.freeze({ name, source, sha: createHash('sha1').update(source).digest('hex') });
}

/** Every script of the store, by operation. */
// PUBLISH sent from the slot of the session it tells of: on Redis Cluster a plain PUBLISH goes to
// any node, and messages that different nodes pass on may arrive out of order; one session's
// changes all leave from its own node, in the order they were written.
const PUBLISH = `
return redis.call('PUBLISH', ARGV[2], ARGV[3])
`;

export const SCRIPTS = Object.freeze({
  readHead: script('readHead', READ_HEAD),
  readAll: script('readAll', READ_ALL),
  readRange: script('readRange', READ_RANGE),
  readAt: script('readAt', READ_AT),
  append: script('append', APPEND),
  replace: script('replace', REPLACE),
  tail: script('tail', TAIL),
  list: script('list', LIST),
  marks: script('marks', MARKS),
  remove: script('remove', REMOVE),
  purge: script('purge', PURGE),
  readValues: script('readValues', READ_VALUES),
  writeValues: script('writeValues', WRITE_VALUES),
  publish: script('publish', PUBLISH),
  forgetSessions: script('forgetSessions', FORGET_SESSIONS),
  forgetValues: script('forgetValues', FORGET_VALUES),
});
