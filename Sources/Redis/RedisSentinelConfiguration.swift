/// Redis Sentinel: the sentinels to ask which server is the master of `masterName`, and how to log
/// in to them. The client follows the Sentinel client spec: it asks each sentinel in turn (the last
/// one that answered first), checks the server it names with `ROLE`, listens for `+switch-master`,
/// and asks again after any connection failure or a `READONLY` answer.
///
/// ```swift
/// var configuration = RedisConfiguration()
/// configuration.sentinel = try RedisSentinelConfiguration(
///   sentinels: "10.0.0.5:26379,10.0.0.6:26379,10.0.0.7:26379", masterName: "reposcroll")
/// ```
public struct RedisSentinelConfiguration: Sendable, Equatable {
  /// The sentinels, in the order to try them first.
  public var sentinels: [RedisServerAddress]
  /// The name the sentinels monitor the master under (`sentinel monitor NAME …`).
  public var masterName: String
  /// The sentinels' ACL user (`AUTH user password`); nil sends `AUTH password`.
  public var username: String?
  /// The sentinels' password (their `requirepass`); nil sends no `AUTH`.
  public var password: String?
  /// Limit for reaching one sentinel and hearing its answer, before the next one is tried.
  public var timeout: Duration

  /// Sentinels and a master name as given.
  public init(
    sentinels: [RedisServerAddress], masterName: String, username: String? = nil, password: String? = nil,
    timeout: Duration = .milliseconds(500)
  ) {
    self.sentinels = sentinels
    self.masterName = masterName
    self.username = username
    self.password = password
    self.timeout = timeout
  }

  /// Sentinels from `host:port,host:port` (port 26379 when left out).
  public init(sentinels list: String, masterName: String) throws(RedisURLError) {
    var addresses: [RedisServerAddress] = []
    for item in list.split(separator: ",") {
      let trimmed = item.drop { $0 == " " }
      addresses.append(try RedisServerAddress(parsing: trimmed, defaultPort: 26379))
    }
    if addresses.isEmpty { throw .missingHost }
    if masterName.isEmpty || masterName.utf8.count > 256
      || masterName.contains(where: { $0 == " " || $0.isNewline })
    {
      throw .invalidMasterName
    }
    self.init(sentinels: addresses, masterName: masterName)
  }
}
