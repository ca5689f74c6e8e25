import CCurl
import HTTP
import Synchronization

/// An async HTTP client on libcurl's multi interface.
///
/// One dedicated thread owns the multi handle and runs `curl_multi_poll`; `execute` hands it
/// work through a locked queue and `curl_multi_wakeup`. Connections (and HTTP/2 where a TLS server
/// offers it) are reused across requests. Only http and https are allowed, TLS is always verified,
/// redirects are off unless configured, and proxies come from the environment as libcurl reads them.
///
/// ```swift
/// let client = CurlHTTPClient(configuration: CurlClientConfiguration())
/// defer { client.shutdown() }
/// do {
///   let response = try await client.execute(
///     ClientRequest(url: "https://api.github.com/zen", headers: ["User-Agent": "RepoScroll"]))
///   print(response.status.code, response.body.count)
/// } catch .timedOut {
///   // typed throws: every failure is a `ClientError`
/// } catch {
///   print(error)
/// }
/// ```
public final class CurlHTTPClient: HTTPClientTransport, Sendable {
  private let engine: CurlEngine?
  private let startError: ClientError?

  /// Starts the client's thread. If libcurl cannot start, every request fails with `.other`.
  public init(configuration: CurlClientConfiguration = .init()) {
    do {
      engine = try CurlEngine(configuration: configuration)
      startError = nil
    } catch {
      engine = nil
      startError = error
    }
  }

  deinit { engine?.shutdown() }

  /// Stops the thread and frees every handle; requests in flight fail with `.cancelled`,
  /// later ones with `.other`. Calling it again does nothing.
  public func shutdown() { engine?.shutdown() }

  /// Performs `request` and returns the final response (3xx included unless redirects are followed).
  ///
  /// Throws `ClientError` only. Cancelling the calling task removes the transfer at once (its
  /// connection is closed) and throws `ClientError.cancelled` rather than `CancellationError`,
  /// so callers switch over one error type. URL and header problems throw before any network use.
  public func execute(_ request: ClientRequest) async throws(ClientError) -> ClientResponse {
    guard let engine else { throw startError ?? .other("client unavailable") }
    try CurlHTTPClient.validate(request)
    let ticket = RequestTicket(request: request)
    // The continuation carries a `Result` so the error stays typed through the resume.
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation {
        (continuation: CheckedContinuation<Result<ClientResponse, ClientError>, Never>) in
        guard ticket.install(continuation) else {
          continuation.resume(returning: .failure(.cancelled))
          return
        }
        if !engine.submit(.add(ticket)) { ticket.finish(.failure(.other("client is shut down"))) }
      }
    } onCancel: {
      ticket.markCancelled()
      _ = engine.submit(.cancel(ticket))
    }
    return try result.get()
  }

  /// Easy handles that exist, attached or pooled (at most `maxConcurrentRequests`; 0 after shutdown).
  var debugLiveEasyHandles: Int { engine?.liveEasyHandles.load(ordering: .relaxed) ?? 0 }

  /// Transfers attached to the multi handle right now.
  var debugActiveTransfers: Int { engine?.activeTransfers.load(ordering: .relaxed) ?? 0 }

  /// Rejects anything but an absolute http(s) URL with a host, and header fields that could smuggle lines.
  static func validate(_ request: ClientRequest) throws(ClientError) {
    try validate(url: request.url)
    guard HTTPToken.isToken(request.method.rawValue) else { throw .other("invalid method \(request.method)") }
    for field in request.headers {
      guard HTTPToken.isToken(field.name),
        !field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 })
      else { throw .other("invalid header field \(field.name)") }
    }
  }

  private static func validate(url: String) throws(ClientError) {
    guard let handle = curl_url() else { throw .other("out of memory") }
    defer { curl_url_cleanup(handle) }
    guard !url.utf8.contains(0), curl_url_set(handle, CURLUPART_URL, url, 0) == CURLUE_OK else {
      throw .invalidURL(url)
    }
    guard let scheme = part(CURLUPART_SCHEME, of: handle), scheme == "http" || scheme == "https",
      let host = part(CURLUPART_HOST, of: handle), !host.isEmpty
    else { throw .invalidURL(url) }
  }

  /// One component of a parsed URL (libcurl lower-cases the scheme).
  private static func part(_ which: CURLUPart, of handle: OpaquePointer) -> String? {
    var value: UnsafeMutablePointer<CChar>?
    guard curl_url_get(handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
    // Safe: libcurl returned a NUL-terminated string that we own until curl_free.
    defer { curl_free(value) }
    return String(cString: value)
  }
}
