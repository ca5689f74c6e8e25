import Encodings
import TLS

/// Where the server is and how the client behaves. Build it from a URL or field by field.
///
/// ```swift
/// var configuration = try RedisConfiguration(url: "rediss://app@redis.internal:6380/0")
/// configuration.password = secretFromAFile
/// configuration.tls?.caFile = "/etc/reposcroll/redis-ca.pem"
/// ```
public struct RedisConfiguration: Sendable, Equatable, CustomStringConvertible {
  /// Host name or IP address (IPv6 without brackets); with `sentinel`, only a name for logs.
  public var host: String
  /// TCP port; with `sentinel`, unused.
  public var port: Int
  /// TLS for every connection (`rediss://`), the server's certificate verified against `caFile` or
  /// the system store and its name (`host`, or the address a sentinel gives); nil speaks plain RESP.
  public var tls: TLSClientConfiguration?
  /// Sentinels that name the master to connect to, instead of `host:port`; nil connects to `host:port`.
  public var sentinel: RedisSentinelConfiguration?
  /// ACL user for `AUTH user password`; nil sends `AUTH password` (the `default` user).
  public var username: String?
  /// Password sent with `AUTH` right after connecting; nil sends no `AUTH`.
  public var password: String?
  /// Database chosen with `SELECT` right after connecting (0 sends nothing).
  public var database: Int
  /// Limit for opening a connection, including the `AUTH`/`SELECT` handshake.
  public var connectTimeout: Duration
  /// Limit for the replies of one command or pipeline, measured from when it is sent.
  public var commandTimeout: Duration
  /// After a failed connection attempt, calls fail at once with `.connectionLost` for this long
  /// instead of each trying again; the first call after it tries to reconnect.
  public var reconnectDelay: Duration
  /// The most connections the pool opens at once.
  public var poolSize: Int
  /// How long a call waits for a free pooled connection before `.poolExhausted`.
  public var poolTimeout: Duration
  /// The most calls that may wait for a connection at once; more fail with `.poolExhausted` at once.
  public var maxWaiters: Int
  /// Bounds on what the server may send.
  public var parserLimits: RESPParserLimits
  /// Ask `ROLE` as each connection opens, so `RedisClient.telemetry` knows what the server is. Turn
  /// it off only for a proxy that drops connections on commands it does not know; the role then
  /// stays unknown. With `sentinel` it is always asked: the spec requires checking the master.
  public var asksRole = true

  /// A configuration with explicit fields; the defaults suit a local server.
  public init(
    host: String = "127.0.0.1", port: Int = 6379, username: String? = nil, password: String? = nil,
    database: Int = 0, connectTimeout: Duration = .milliseconds(500),
    commandTimeout: Duration = .seconds(1), reconnectDelay: Duration = .milliseconds(250),
    poolSize: Int = 8, poolTimeout: Duration = .milliseconds(500), maxWaiters: Int = 1024,
    parserLimits: RESPParserLimits = RESPParserLimits()
  ) {
    self.host = host
    self.port = port
    self.tls = nil
    self.sentinel = nil
    self.username = username
    self.password = password
    self.database = database
    self.connectTimeout = connectTimeout
    self.commandTimeout = commandTimeout
    self.reconnectDelay = reconnectDelay
    self.poolSize = max(1, poolSize)
    self.poolTimeout = poolTimeout
    self.maxWaiters = max(0, maxWaiters)
    self.parserLimits = parserLimits
  }

  /// Parses `redis://[[user]:password@]host[:port][/db]` (port 6379 and database 0 by default; user and
  /// password percent-decoded; IPv6 hosts in brackets); `rediss://` is the same over TLS, trusting the
  /// system store until `tls.caFile` is set. The other fields keep their defaults.
  public init(url: String) throws(RedisURLError) {
    self.init()
    guard let schemeEnd = url.firstRange(of: "://") else { throw .unsupportedScheme(url.isEmpty ? "" : "?") }
    let scheme = url[..<schemeEnd.lowerBound].lowercased()
    switch scheme {
    case "redis": tls = nil
    case "rediss": tls = TLSClientConfiguration()
    default: throw .unsupportedScheme(String(scheme.prefix(16)))
    }
    let rest = url[schemeEnd.upperBound...]
    if rest.contains("?") || rest.contains("#") { throw .unexpectedQueryOrFragment }
    let slash = rest.firstIndex(of: "/") ?? rest.endIndex
    var authority = rest[..<slash]
    let path = rest[slash...]
    if let at = authority.lastIndex(of: "@") {
      let userInfo = authority[..<at]
      authority = authority[authority.index(after: at)...]
      if let colon = userInfo.firstIndex(of: ":") {
        let user = try Self.percentDecoded(userInfo[..<colon])
        username = user.isEmpty ? nil : user
        password = try Self.percentDecoded(userInfo[userInfo.index(after: colon)...])
      } else {
        let user = try Self.percentDecoded(userInfo)
        username = user.isEmpty ? nil : user
      }
    }
    let address = try RedisServerAddress(parsing: authority, defaultPort: port)
    host = address.host
    port = address.port
    let db = path.dropFirst()
    if !db.isEmpty {
      guard db.count <= 5, db.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(db), value <= 65535
      else {
        throw .invalidDatabase(String(db.prefix(16)))
      }
      database = value
    }
  }

  /// `redis://host:port/db` (`rediss://` with TLS), with the password shown as `***`; with
  /// sentinels, the master's name and the sentinels instead of the host.
  public var description: String {
    let auth = password == nil ? (username.map { "\($0)@" } ?? "") : "\(username ?? ""):***@"
    let scheme = tls == nil ? "redis" : "rediss"
    if let sentinel {
      let list = sentinel.sentinels.map(\.description).joined(separator: ",")
      return "\(scheme)://\(auth)\(sentinel.masterName)/\(database) via sentinels \(list)"
    }
    return "\(scheme)://\(auth)\(RedisServerAddress(host: host, port: port))/\(database)"
  }

  /// Percent-decodes user info with the HTTP target's decoder (`+` stays a plus here).
  private static func percentDecoded(_ text: Substring) throws(RedisURLError) -> String {
    guard let decoded = URLEncoding.percentDecode(text) else { throw .invalidPercentEncoding }
    return decoded
  }
}
