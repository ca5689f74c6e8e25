import CurlClient
import HTTP
import SharedStore

/// The client's mutable state: cache, in-flight requests, rate limits and metrics, in one actor so
/// the check-then-act sequences (cache miss → join or start a request) cannot interleave.
actor GitHubState {
  private let transport: any HTTPClientTransport
  let now: @Sendable () -> Double
  private let redactor: Redactor
  /// The tier shared with other instances, if one is configured (see `GitHubState+Shared`).
  private let shared: (any SharedStore)?
  var cache: ResponseCache<Payload>
  private var inflight: [String: Task<Result<Delivered, GitHubError>, Never>] = [:]
  var ledger = RateLimitLedger()
  var counters = GitHubMetrics()

  init(
    transport: any HTTPClientTransport, now: @escaping @Sendable () -> Double, cacheBytes: Int,
    redactor: Redactor, shared: (any SharedStore)? = nil
  ) {
    self.transport = transport
    self.shared = shared
    self.now = now
    self.redactor = redactor
    self.cache = ResponseCache(capacity: cacheBytes)
  }

  /// Serves from a fresh entry, joins an identical request in flight, refuses an exhausted
  /// resource locally, or starts one upstream call (conditional when an ETag is cached).
  func load(_ fetch: Fetch, reload: Bool) async -> Result<Delivered, GitHubError> {
    let start = now()
    if !reload, let entry = cache.get(fetch.key), start < entry.expires {
      counters.cacheHits += 1
      return .success(Delivered(payload: entry.value, stale: false))
    }
    if let running = inflight[fetch.key] {
      counters.coalesced += 1
      return await running.value
    }
    counters.cacheMisses += 1
    if let resource = fetch.resource, let refusal = ledger.refusal(resource, now: start) {
      counters.rateLimitedLocally += 1
      return .failure(refusal)
    }
    var request = fetch.request
    if let etag = cache.peek(fetch.key)?.etag {
      request.headers.replaceOrAdd(name: "If-None-Match", value: etag)
    }
    if let resource = fetch.resource { ledger.reserve(resource, now: start) }
    let task = Task { await self.route(fetch, request, reload: reload) }
    inflight[fetch.key] = task
    return await task.value
  }

  func metrics() -> GitHubMetrics {
    var result = counters
    result.cacheBytes = cache.totalBytes
    result.cacheEntries = cache.count
    return result
  }

  func snapshots() -> [RateLimitSnapshot] { ledger.snapshots }

  /// Through the shared store when there is one, else straight upstream; then leaves `inflight`.
  private func route(_ fetch: Fetch, _ request: ClientRequest, reload: Bool) async -> Result<
    Delivered, GitHubError
  > {
    defer { inflight[fetch.key] = nil }
    // Avatars stay local: large, per-instance, and not counted against the API's limits.
    if let shared, fetch.endpoint != .avatar {
      return await loadShared(fetch, request, reload: reload, store: shared)
    }
    return await perform(fetch, request)
  }

  /// One upstream call and the local bookkeeping of its answer (mirrored to the shared ledger).
  func perform(_ fetch: Fetch, _ request: ClientRequest) async -> Result<Delivered, GitHubError> {
    let outcome = await Self.send(transport, request, decode: fetch.decode)
    let arrived = now()
    switch outcome {
    case .failed(let message):
      counters.recordCall(fetch.endpoint, status: 0)
      if let resource = fetch.resource { await refund(resource) }
      return staleOr(.network(redactor.redact(message)), key: fetch.key)
    case .answered(let response, let decoded):
      let status = response.status.code
      counters.recordCall(fetch.endpoint, status: status)
      if status == 304 {
        if let resource = fetch.resource { await refund(resource) }
        guard let entry = cache.peek(fetch.key) else { return .failure(.upstream(status: 304)) }
        cache.refresh(fetch.key, expires: arrived + fetch.ttl, etag: response.headers["etag"])
        counters.revalidated += 1
        return .success(Delivered(payload: entry.value, stale: false))
      }
      if let resource = fetch.resource, let limits = RateLimitHeaders.parse(response.headers) {
        ledger.record(limits, resource: resource, now: arrived)
        if let shared, let remaining = limits.remaining {
          await shared.record(
            resource, limit: limits.limit ?? remaining, remaining: remaining,
            reset: limits.reset ?? Int(arrived) + 60)
        }
      }
      if let error = ResponseClassifier.error(
        status: status, headers: response.headers,
        body: status == 200 ? response.body : redactor.redact(response.body),
        resource: fetch.resource, now: arrived
      ) {
        return await handle(error, fetch: fetch)
      }
      guard let decoded else { return .failure(.upstream(status: status)) }
      switch decoded {
      case .success(let payload):
        storeLocally(fetch.key, payload, etag: response.headers["etag"], expires: arrived + fetch.ttl)
        return .success(Delivered(payload: payload, stale: false))
      case .failure(let error):
        return .failure(error)
      }
    }
  }

  /// Puts a payload in the local cache, charged for what it holds.
  func storeLocally(_ key: String, _ payload: Payload, etag: String?, expires: Double) {
    let cost = payload.estimatedBytes + key.utf8.count + 256
    cache.set(key, .init(value: payload, etag: etag, expires: expires, cost: cost))
  }

  private func refund(_ resource: String) async {
    ledger.refund(resource)
    await shared?.refund(resource)
  }

  private func handle(_ error: GitHubError, fetch: Fetch) async -> Result<Delivered, GitHubError> {
    switch error {
    case .rateLimited(let resource, let until, let secondary):
      ledger.block(resource, until: until, secondary: secondary)
      await shared?.block(resource, until: until, secondary: secondary)
      return .failure(error)
    case .upstream(let status) where status >= 500:
      return staleOr(error, key: fetch.key)
    case .validation(let message):
      return .failure(.validation(redactor.redact(message)))
    case .forbidden(let message):
      return .failure(.forbidden(redactor.redact(message)))
    default:
      return .failure(error)
    }
  }

  private func staleOr(_ error: GitHubError, key: String) -> Result<Delivered, GitHubError> {
    guard let entry = cache.peek(key) else { return .failure(error) }
    counters.staleServed += 1
    return .success(Delivered(payload: entry.value, stale: true))
  }

  private enum Outcome: Sendable {
    /// A response; `decoded` is set for 200 only.
    case answered(ClientResponse, decoded: Result<Payload, GitHubError>?)
    case failed(String)
  }

  /// The transport call and the decoding, off the actor so other requests proceed meanwhile.
  @concurrent
  private static func send(
    _ transport: any HTTPClientTransport, _ request: ClientRequest,
    decode: @Sendable ([UInt8], HTTPHeaders) throws(GitHubError) -> Payload
  ) async -> Outcome {
    let response: ClientResponse
    do {
      response = try await transport.execute(request)
    } catch let error as ClientError {
      return .failed(describe(error))
    } catch is CancellationError {
      return .failed("cancelled")
    } catch {
      return .failed(String(describing: error))
    }
    guard response.status.code == 200 else { return .answered(response, decoded: nil) }
    do {
      return .answered(response, decoded: .success(try decode(response.body, response.headers)))
    } catch {
      return .answered(response, decoded: .failure(error))
    }
  }

  private static func describe(_ error: ClientError) -> String {
    switch error {
    case .invalidURL(let url): return "invalid URL \(url)"
    case .cannotResolve(let host): return "cannot resolve \(host)"
    case .cannotConnect(let message): return "cannot connect: \(message)"
    case .timedOut: return "timed out"
    case .tls(let message): return "TLS failure: \(message)"
    case .tooLarge(let limit): return "response larger than \(limit) bytes"
    case .cancelled: return "cancelled"
    case .other(let message): return message
    }
  }
}
