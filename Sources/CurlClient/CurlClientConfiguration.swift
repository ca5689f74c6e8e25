/// Limits and behaviour shared by every request of one `CurlHTTPClient`.
public struct CurlClientConfiguration: Sendable {
  /// Time allowed to establish a connection (DNS, TCP and TLS).
  public var connectTimeout: Duration
  /// Time allowed for a whole request; `ClientRequest.timeout` overrides it per request.
  public var totalTimeout: Duration
  /// Largest body accepted; `ClientRequest.maxResponseBytes` overrides it per request.
  public var maxResponseBytes: Int
  /// Transfers in flight at once; further requests wait in a queue.
  public var maxConcurrentRequests: Int
  /// Whether 3xx responses are followed (http and https targets only).
  public var followRedirects: Bool
  /// Sent unless a request sets its own `User-Agent`; libcurl sends none and GitHub refuses that.
  public var userAgent: String

  /// A configuration with the defaults listed on each property.
  public init(
    connectTimeout: Duration = .seconds(5), totalTimeout: Duration = .seconds(20),
    maxResponseBytes: Int = 8 * 1024 * 1024, maxConcurrentRequests: Int = 32,
    followRedirects: Bool = false, userAgent: String = "RepoScroll/1.0"
  ) {
    self.connectTimeout = connectTimeout
    self.totalTimeout = totalTimeout
    self.maxResponseBytes = maxResponseBytes
    self.maxConcurrentRequests = maxConcurrentRequests
    self.followRedirects = followRedirects
    self.userAgent = userAgent
  }
}

extension Duration {
  /// Whole milliseconds, at least 1, because libcurl reads 0 as "no limit".
  var curlMilliseconds: Int {
    let (seconds, attoseconds) = components
    let ms = seconds.multipliedReportingOverflow(by: 1000)
    guard !ms.overflow else { return Int.max }
    return Swift.max(1, Int(ms.partialValue) + Int(attoseconds / 1_000_000_000_000_000))
  }
}
