import TLS

/// Asking sentinels which server is the master, as the Sentinel client spec says: each sentinel in
/// turn with a short timeout, `SENTINEL get-master-addr-by-name`, the next one on an error, a
/// timeout or a null answer (that sentinel does not know the name).
enum SentinelQuery {
  /// A master address and the sentinel that gave it.
  struct Answer: Sendable {
    let master: RedisServerAddress
    let sentinel: RedisServerAddress
  }

  /// Asks the sentinels in `order` for the master of `settings.masterName`. When none answers, the
  /// error is `.authFailed` or `.tls` if every sentinel failed that way (a wrong password or
  /// certificate stays recognisable), else `.connectionLost` naming each sentinel's failure.
  static func master(
    _ settings: RedisSentinelConfiguration, order: [RedisServerAddress]? = nil, of base: RedisConfiguration,
    io: RedisIOLoop, tls: TLSClientContext?
  ) async throws(RedisError) -> Answer {
    var failures: [(RedisServerAddress, RedisError)] = []
    for sentinel in order ?? settings.sentinels {
      do {
        let connection = try await RedisConnection.connect(
          configuration(for: sentinel, settings, base: base), io: io,
          dial: RedisConnection.Dial(tls: tls, isSentinel: true))
        defer { connection.close() }
        let reply = try await connection.execute(
          ["SENTINEL", "get-master-addr-by-name", RedisArgument(settings.masterName)])
        guard let master = address(in: reply) else {
          let why = reply.isNull ? "does not know \(settings.masterName)" : "gave no address"
          failures.append((sentinel, .connectionLost(why)))
          continue
        }
        return Answer(master: master, sentinel: sentinel)
      } catch {
        if error == .cancelled || error == .shutDown { throw error }
        failures.append((sentinel, error))
      }
    }
    let errors = failures.map(\.1)
    if let first = errors.first, errors.allSatisfy({ Self.sameKind($0, first) }) {
      if case .authFailed(let message) = first { throw .authFailed("sentinels: \(message)") }
      if case .tls = first { throw first }
    }
    let text = failures.map { "\($0.0): \($0.1)" }.joined(separator: "; ")
    throw .connectionLost("no sentinel named the master \(settings.masterName) (\(text))")
  }

  /// How to reach one sentinel: its address and credentials, TLS as the data servers have it, its
  /// short timeout for both connecting and answering.
  static func configuration(
    for sentinel: RedisServerAddress, _ settings: RedisSentinelConfiguration, base: RedisConfiguration
  ) -> RedisConfiguration {
    var configuration = RedisConfiguration(
      host: sentinel.host, port: sentinel.port, username: settings.username, password: settings.password,
      connectTimeout: settings.timeout, commandTimeout: settings.timeout)
    configuration.tls = base.tls
    return configuration
  }

  /// The `host:port` in an answer to `get-master-addr-by-name` (`[host, port]`), nil for anything else.
  static func address(in reply: RESPValue) -> RedisServerAddress? {
    guard let parts = reply.array, parts.count == 2, let host = parts[0].string, !host.isEmpty,
      host.utf8.count <= 255, let port = parts[1].integer, (1...65535).contains(port)
    else { return nil }
    return RedisServerAddress(host: host, port: Int(port))
  }

  /// The new master in a `+switch-master` message (`name old-ip old-port new-ip new-port`) for
  /// `name`, nil for another master's or a malformed one.
  static func switchedMaster(_ payload: [UInt8], name: String) -> RedisServerAddress? {
    let words = String(decoding: payload, as: UTF8.self).split(separator: " ")
    guard words.count == 5, words[0] == name, let port = Int(words[4]), (1...65535).contains(port),
      !words[3].isEmpty
    else { return nil }
    return RedisServerAddress(host: String(words[3]), port: port)
  }

  private static func sameKind(_ a: RedisError, _ b: RedisError) -> Bool {
    switch (a, b) {
    case (.authFailed, .authFailed), (.tls, .tls): return true
    default: return false
    }
  }
}
