import Clocks

/// Anything that runs pipelines: a `RedisConnection` or a pooled `RedisClient`. The typed helpers in
/// its extension work on both.
public protocol RedisCommandRunner: Sendable {
  /// Sends `commands` together and returns one reply per command, in order. Error replies stay in the
  /// array as `.error` values; the call throws only for connection, timeout, pool or cancellation failures.
  /// `timeout` replaces the configured command timeout for this call (for blocking commands such as
  /// `BLPOP`); nil keeps it.
  func pipeline(_ commands: [RedisCommand], timeout: Duration?) async throws(RedisError) -> [RESPValue]
}

extension RedisCommandRunner {
  /// Sends `commands` together with the configured command timeout; see `pipeline(_:timeout:)`.
  public func pipeline(_ commands: [RedisCommand]) async throws(RedisError) -> [RESPValue] {
    try await pipeline(commands, timeout: nil)
  }

  /// Runs one command and returns its reply; an error reply throws `.server(message)`, except
  /// `NOAUTH`/`WRONGPASS`, which throw `.authFailed`. `timeout` replaces the configured command timeout.
  @discardableResult
  public func execute(_ command: RedisCommand, timeout: Duration? = nil) async throws(RedisError) -> RESPValue
  {
    let replies = try await pipeline([command], timeout: timeout)
    guard let reply = replies.first else { throw .protocolViolation(.unsolicitedReply) }
    if let message = reply.errorMessage {
      if message.hasPrefix("NOAUTH") || message.hasPrefix("WRONGPASS") { throw .authFailed(message) }
      throw .server(message)
    }
    return reply
  }

  /// Runs a command given as its arguments, name first: `execute(["HSET", key, "a", 1])`.
  @discardableResult
  public func execute(_ arguments: [RedisArgument], timeout: Duration? = nil) async throws(RedisError)
    -> RESPValue
  {
    try await execute(RedisCommand(arguments: arguments), timeout: timeout)
  }

  /// `PING`; succeeds when the server answers.
  public func ping() async throws(RedisError) {
    try await execute(RedisCommand("PING"))
  }

  /// `GET key`: the value's bytes, or nil when the key does not exist.
  public func get(_ key: String) async throws(RedisError) -> [UInt8]? {
    let reply = try await execute(RedisCommand("GET", RedisArgument(key)))
    if reply.isNull { return nil }
    guard let bytes = reply.bytes else { throw .protocolViolation(.unsolicitedReply) }
    return bytes
  }

  /// `SET key value [PX ms]`: stores the value, replacing any other, expiring after `expiresIn` if given.
  public func set(_ key: String, _ value: [UInt8], expiresIn: Duration? = nil) async throws(RedisError) {
    var command = RedisCommand("SET", RedisArgument(key), .bytes(value))
    if let expiresIn { command.arguments += ["PX", RedisArgument(max(1, expiresIn.wholeMilliseconds))] }
    try await execute(command)
  }

  /// `SET key value NX PX ms`: stores the value only if the key does not exist; true if it was stored.
  /// This is the lock primitive: the key vanishes after `expiresIn` even if its owner dies.
  public func setIfAbsent(_ key: String, _ value: [UInt8], expiresIn: Duration) async throws(RedisError)
    -> Bool
  {
    let ms = max(1, expiresIn.wholeMilliseconds)
    let reply = try await execute(
      RedisCommand("SET", RedisArgument(key), .bytes(value), "NX", "PX", RedisArgument(ms)))
    return !reply.isNull
  }

  /// `DEL key…`: the number of keys that existed and were removed.
  @discardableResult
  public func delete(_ keys: [String]) async throws(RedisError) -> Int {
    if keys.isEmpty { return 0 }
    let reply = try await execute(RedisCommand(arguments: ["DEL"] + keys.map { RedisArgument($0) }))
    return Int(clamping: reply.integer ?? 0)
  }

  /// `PEXPIRE key ms`: true if the key exists and now expires after `expiresIn`.
  @discardableResult
  public func expire(_ key: String, after expiresIn: Duration) async throws(RedisError) -> Bool {
    let reply = try await execute(
      RedisCommand("PEXPIRE", RedisArgument(key), RedisArgument(max(1, expiresIn.wholeMilliseconds))))
    return reply.integer == 1
  }

  /// `PUBLISH channel message`: the number of subscribers that received it.
  @discardableResult
  public func publish(_ message: [UInt8], to channel: String) async throws(RedisError) -> Int {
    let reply = try await execute(RedisCommand("PUBLISH", RedisArgument(channel), .bytes(message)))
    return Int(clamping: reply.integer ?? 0)
  }

  /// Runs a Lua script with `EVALSHA`, falling back to `EVAL` (which also caches it on the server) when
  /// the server answers `NOSCRIPT`, for example after a restart. Errors raised by the script throw `.server`.
  @discardableResult
  public func evaluate(_ script: RedisScript, keys: [String] = [], arguments: [RedisArgument] = [])
    async throws(RedisError) -> RESPValue
  {
    let tail = [RedisArgument(keys.count)] + keys.map { RedisArgument($0) } + arguments
    let first = try await pipeline([RedisCommand(arguments: ["EVALSHA", RedisArgument(script.sha1)] + tail)])
    if let reply = first.first, reply.errorMessage?.hasPrefix("NOSCRIPT") != true {
      if let message = reply.errorMessage { throw .server(message) }
      return reply
    }
    return try await execute(RedisCommand(arguments: ["EVAL", RedisArgument(script.source)] + tail))
  }
}
