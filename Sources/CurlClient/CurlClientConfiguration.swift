import Clocks
import HTTP

/// Limits and behaviour shared by every request of one `CurlHTTPClient`.
public struct CurlClientConfiguration: Sendable {
  /// The `User-Agent` RepoScroll's clients send unless configured otherwise.
  public static let defaultUserAgent = "RepoScroll/1.0"

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
  /// A PEM file of CA certificates to trust instead of the system bundle (`CURLOPT_CAINFO`), for
  /// GitHub Enterprise Server or a TLS-inspecting proxy. This libcurl ignores `CURL_CA_BUNDLE` and
  /// `SSL_CERT_FILE`, so this is the only way to trust a private CA.
  public var caFile: String?
  /// Receives one line per failed transfer (TLS, connect, timeout, size): the method, the URL
  /// without its query, and libcurl's own error text. Cancelled requests are not reported.
  /// Called on the client's thread, so it must not block.
  public var failureLog: (@Sendable (String) -> Void)?

  /// A configuration with the defaults listed on each property.
  public init(
    connectTimeout: Duration = .seconds(5), totalTimeout: Duration = .seconds(20),
    maxResponseBytes: Int = 8 * 1024 * 1024, maxConcurrentRequests: Int = 32,
    followRedirects: Bool = false, userAgent: String = defaultUserAgent, caFile: String? = nil,
    failureLog: (@Sendable (String) -> Void)? = nil
  ) {
    self.connectTimeout = connectTimeout
    self.totalTimeout = totalTimeout
    self.maxResponseBytes = maxResponseBytes
    self.maxConcurrentRequests = maxConcurrentRequests
    self.followRedirects = followRedirects
    self.userAgent = userAgent
    self.caFile = caFile
    self.failureLog = failureLog
  }
}

extension Duration {
  /// Whole milliseconds, at least 1, because libcurl reads 0 as "no limit".
  var curlMilliseconds: Int { Swift.max(1, wholeMilliseconds) }
}
