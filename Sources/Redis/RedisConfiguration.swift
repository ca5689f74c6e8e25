import HTTP

/// Where the server is and how the client behaves. Build it from a URL or field by field.
public struct RedisConfiguration: Sendable, Equatable, CustomStringConvertible {
  /// Host name or IP address (IPv6 without brackets).
  public var host: String
  /// TCP port.
  public var port: Int
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
  /// password percent-decoded; IPv6 hosts in brackets). The other fields keep their defaults.
  public init(url: String) throws(RedisURLError) {
    self.init()
    guard let schemeEnd = url.firstRange(of: "://") else { throw .unsupportedScheme(url.isEmpty ? "" : "?") }
    let scheme = url[..<schemeEnd.lowerBound].lowercased()
    if scheme == "rediss" { throw .tlsNotSupported }
    guard scheme == "redis" else { throw .unsupportedScheme(String(scheme.prefix(16))) }
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
    var portText: Substring?
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { throw .missingHost }
      host = String(authority[authority.index(after: authority.startIndex)..<close])
      let after = authority[authority.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { throw .invalidPort(String(after.prefix(16))) }
        portText = after.dropFirst()
      }
    } else if let colon = authority.lastIndex(of: ":") {
      host = String(authority[..<colon])
      portText = authority[authority.index(after: colon)...]
    } else {
      host = String(authority)
    }
    if host.isEmpty { throw .missingHost }
    if let portText {
      guard portText.count <= 5, portText.allSatisfy(\.isASCII), let value = Int(portText),
        (1...65535).contains(value)
      else { throw .invalidPort(String(portText.prefix(16))) }
      port = value
    }
    let db = path.dropFirst()
    if !db.isEmpty {
      guard db.count <= 5, db.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(db), value <= 65535
      else {
        throw .invalidDatabase(String(db.prefix(16)))
      }
      database = value
    }
  }

  /// `redis://host:port/db`, with the password shown as `***`.
  public var description: String {
    let auth = password == nil ? (username.map { "\($0)@" } ?? "") : "\(username ?? ""):***@"
    let shownHost = host.contains(":") ? "[\(host)]" : host
    return "redis://\(auth)\(shownHost):\(port)/\(database)"
  }

  /// Percent-decodes user info with the HTTP target's decoder (`+` stays a plus here).
  private static func percentDecoded(_ text: Substring) throws(RedisURLError) -> String {
    guard let decoded = URLEncoding.percentDecode(text) else { throw .invalidPercentEncoding }
    return decoded
  }
}
