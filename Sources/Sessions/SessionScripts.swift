import Redis

/// The Redis session store's writes as Lua scripts, each atomic. Times are Unix milliseconds.
enum SessionScripts {
  /// KEYS session, account index, index of all; ARGV sealed, ttl, now, until, per-account cap, total
  /// cap, name, session key prefix, account index TTL. Drops expired names from the index of all and
  /// vanished ones from the account's; refuses (-1) when the store is full of other sessions; else
  /// ends the account's oldest beyond its cap, stores the session and returns how many it ended.
  /// An account's index scores its sessions by sign-in order (time, kept strictly increasing).
  static let create = RedisScript(
    """
    local now = tonumber(ARGV[3])
    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
    for _, name in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
      if redis.call('EXISTS', ARGV[8] .. name) == 0 then
        redis.call('ZREM', KEYS[2], name)
        redis.call('ZREM', KEYS[3], name)
      end
    end
    local making = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5]) + 1
    if making < 0 then making = 0 end
    if redis.call('ZCARD', KEYS[3]) - making >= tonumber(ARGV[6]) then return -1 end
    if making > 0 then
      for _, name in ipairs(redis.call('ZRANGE', KEYS[2], 0, making - 1)) do
        redis.call('DEL', ARGV[8] .. name)
        redis.call('ZREM', KEYS[2], name)
        redis.call('ZREM', KEYS[3], name)
      end
    end
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
    -- Sign-ins in the same millisecond keep their order: the newest always scores highest.
    local newest = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
    local order = now
    if newest[2] and tonumber(newest[2]) >= order then order = tonumber(newest[2]) + 1 end
    redis.call('ZADD', KEYS[2], order, ARGV[7])
    redis.call('PEXPIRE', KEYS[2], ARGV[9])
    redis.call('ZADD', KEYS[3], ARGV[4], ARGV[7])
    return making
    """)

  /// KEYS session, index of all; ARGV expected, sealed, ttl, until, name. Writes only over the
  /// expected value (1), else nothing (0): a deleted session stays deleted.
  static let replace = RedisScript(
    """
    if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
    redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
    redis.call('ZADD', KEYS[2], 'XX', ARGV[4], ARGV[5])
    return 1
    """)

  /// KEYS session, index of all; ARGV name. 1 when the session was there.
  static let delete = RedisScript(
    """
    local removed = redis.call('DEL', KEYS[1])
    redis.call('ZREM', KEYS[2], ARGV[1])
    return removed
    """)

  /// KEYS lock; ARGV owner, channel. Frees the lock if the owner still holds it, and publishes the
  /// end of the renewal either way.
  static let unlock = RedisScript(
    """
    if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
    redis.call('PUBLISH', ARGV[2], '1')
    return 1
    """)
}
