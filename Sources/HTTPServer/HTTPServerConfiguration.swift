import Clocks
import HTTP

/// Listener address, limits and timeouts for an `HTTPServer`.
public struct HTTPServerConfiguration: Sendable {
  /// The address to bind (IPv4 or IPv6 literal, or `localhost`).
  public var host: String = "127.0.0.1"
  /// The port to bind; 0 picks a free port.
  public var port: Int = 8080
  /// Open connections allowed; past the cap new ones get a 503 and are closed.
  public var maxConnections: Int = 1024
  /// Request line, header and body limits the parser enforces (414, 431, 413).
  public var limits = HTTPParserLimits()
  /// Time to receive a complete request head once a request has begun (slowloris guard): 408.
  public var headerTimeout: Duration = .seconds(10)
  /// Time an idle keep-alive connection is kept open.
  public var idleTimeout: Duration = .seconds(60)
  /// Time a slow reader may go without accepting any response bytes.
  public var writeTimeout: Duration = .seconds(30)
  /// Time in-flight requests get to finish during `shutdown()`.
  public var drainTimeout: Duration = .seconds(10)
  /// Peers whose `X-Forwarded-For`, `X-Forwarded-Proto` and `X-Request-Id` are believed; nobody by default.
  public var trustedProxies = TrustedProxies()
  /// The `Server` header value.
  public var serverName: String = "RepoScroll"
  /// Where "now" comes from: the `Date` header, request durations in the access log, and the
  /// connection timeouts, which the loops check on their tick.
  public var time: TimeSource

  /// The defaults above, reading the time from `time`.
  public init(time: TimeSource) { self.time = time }
}
