import Redis

/// The shared rate-limit ledger as Lua scripts, so each check-and-update runs atomically in Redis
/// (no read-modify-write races between instances). One hash per resource: `limit`, `remaining`,
/// `reset` and `secondary` (Unix seconds). The rules match the in-process `RateLimitLedger`.
enum LedgerScripts {
  /// KEYS[1] ledger; ARGV now. Returns {0} to go ahead (one call counted), {1, reset} when the
  /// window's budget is spent, {2, until} under a secondary limit.
  static let reserve = RedisScript(
    """
    local s = redis.call('HMGET', KEYS[1], 'limit', 'remaining', 'reset', 'secondary')
    local now = tonumber(ARGV[1])
    local secondary = tonumber(s[4]) or 0
    if now < secondary then return {2, secondary} end
    local reset = tonumber(s[3])
    if not reset then return {0} end
    local limit = tonumber(s[1]) or 0
    local remaining = tonumber(s[2]) or 0
    if now >= reset then
      remaining = limit
    elseif remaining <= 0 then
      return {1, reset}
    end
    redis.call('HSET', KEYS[1], 'remaining', math.max(0, remaining - 1))
    return {0}
    """)

  /// KEYS[1] ledger; ARGV limit, remaining, reset, keep seconds. A later window replaces the
  /// figures; within one window the lower remaining count wins.
  static let record = RedisScript(
    """
    local s = redis.call('HMGET', KEYS[1], 'remaining', 'reset')
    local limit, remaining, reset = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
    local known = tonumber(s[2])
    if not known or reset > known then
      redis.call('HSET', KEYS[1], 'limit', limit, 'remaining', remaining, 'reset', reset)
    elseif reset == known then
      redis.call('HSET', KEYS[1], 'limit', limit, 'remaining', math.min(tonumber(s[1]) or remaining, remaining))
    else
      redis.call('HSET', KEYS[1], 'limit', limit)
    end
    redis.call('EXPIRE', KEYS[1], ARGV[4])
    return 0
    """)

  /// KEYS[1] ledger; ARGV until, secondary (1 or 0), keep seconds.
  static let block = RedisScript(
    """
    local deadline = tonumber(ARGV[1])
    if ARGV[2] == '1' then
      local current = tonumber(redis.call('HGET', KEYS[1], 'secondary')) or 0
      redis.call('HSET', KEYS[1], 'secondary', math.max(current, deadline))
    else
      redis.call('HSET', KEYS[1], 'remaining', 0, 'reset', deadline)
      redis.call('HSETNX', KEYS[1], 'limit', 0)
    end
    redis.call('EXPIRE', KEYS[1], ARGV[3])
    return 0
    """)

  /// KEYS[1] ledger. Gives back one counted call, up to the limit.
  static let refund = RedisScript(
    """
    local s = redis.call('HMGET', KEYS[1], 'limit', 'remaining')
    local limit, remaining = tonumber(s[1]), tonumber(s[2])
    if limit and remaining then redis.call('HSET', KEYS[1], 'remaining', math.min(limit, remaining + 1)) end
    return 0
    """)

  /// KEYS[1] lock; ARGV owner. Deletes the lock only if this owner still holds it.
  static let unlock = RedisScript(
    """
    if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
    return 0
    """)
}
