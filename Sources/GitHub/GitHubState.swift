import CurlClient
import HTTP
import SharedStore
import Synchronization

/// The client's mutable state: cache, in-flight requests, rate limits and metrics, in one actor so
/// the check-then-act sequences (cache miss → join or start a request) cannot interleave.
actor GitHubState {
  /// One upstream call and the callers waiting for it (coalesced loads share one flight).
  private struct Flight {
    var id: UInt64
    var task: Task<Void, Never>
    var waiters: [UInt64: CheckedContinuation<Result<Delivered, GitHubError>, Never>] = [:]
  }

  private let transport: any HTTPClientTransport
  let now: @Sendable () -> Double
  private let redactor: Redactor
  /// The tier shared with other instances, if one is configured (see `GitHubState+Shared`).
  private let shared: (any SharedStore)?
  private let text: UpstreamText
  private let log: (@Sendable (String) -> Void)?
  /// Read and written on the actor, except `freshHit`'s lookups.
  nonisolated let cache: LockedResponseCache<any CachedPayload>
  /// Hits answered by `freshHit`, off the actor (added to `counters.cacheHits` in `metrics()`).
  private nonisolated let hitsOffActor = Atomic<Int>(0)
  private var flights: [String: Flight] = [:]
  private var nextID: UInt64 = 0
  var ledger = RateLimitLedger()
  var counters = GitHubMetrics()

  init(
    transport: any HTTPClientTransport, now: @escaping @Sendable () -> Double, cacheBytes: Int,
    redactor: Redactor, log: (@Sendable (String) -> Void)? = nil, shared: (any SharedStore)? = nil
  ) {
    self.transport = transport
    self.shared = shared
    self.now = now
    self.redactor = redactor
    self.text = UpstreamText(redactor: redactor)
    self.log = log
    self.cache = LockedResponseCache(capacity: cacheBytes)
  }

  /// The fresh cached value under `key`, read without entering the actor; nil when there is none
  /// (then `load` decides, re-checking the cache).
  nonisolated func freshHit(_ key: String) -> Delivered? {
    guard let entry = cache.get(key), now() < entry.expires else { return nil }
    hitsOffActor.add(1, ordering: .relaxed)
    return Delivered(payload: entry.value, stale: false)
  }

  /// Serves from a fresh entry, joins an identical request in flight, refuses an exhausted
  /// resource locally, or starts one upstream call (conditional when an ETag is cached).
  func load<Value>(_ fetch: Fetch<Value>, reload: Bool) async -> Result<Delivered, GitHubError> {
    if Task.isCancelled { return .failure(.cancelled) }
    let start = now()
    if !reload, let entry = cache.get(fetch.key), start < entry.expires {
      counters.cacheHits += 1
      return .success(Delivered(payload: entry.value, stale: false))
    }
    if flights[fetch.key] != nil {
      counters.coalesced += 1
      return await wait(for: fetch.key)
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
    let flightID = newID()
    let task = Task { await self.fly(fetch, request, reload: reload, flightID: flightID) }
    flights[fetch.key] = Flight(id: flightID, task: task)
    return await wait(for: fetch.key)
  }

  /// Waits for the flight under `key` as one of its waiters. A caller whose task is cancelled gets
  /// `.cancelled` at once; the upstream call is cancelled when its last waiter has gone.
  private func wait(for key: String) async -> Result<Delivered, GitHubError> {
    let waiterID = newID()
    return await withTaskCancellationHandler {
      await withCheckedContinuation {
        (continuation: CheckedContinuation<Result<Delivered, GitHubError>, Never>) in
        guard flights[key] != nil else {
          continuation.resume(returning: .failure(.cancelled))
          return
        }
        flights[key]?.waiters[waiterID] = continuation
        if Task.isCancelled { leave(key, waiterID: waiterID) }
      }
    } onCancel: {
      // Hops onto the actor; by then the waiter is registered (registration happens before this
      // caller's first suspension on the actor), or it has already been answered.
      Task { await self.leave(key, waiterID: waiterID) }
    }
  }

  /// Answers one waiter with `.cancelled`; the last one out cancels the upstream call.
  private func leave(_ key: String, waiterID: UInt64) {
    guard let continuation = flights[key]?.waiters.removeValue(forKey: waiterID) else { return }
    continuation.resume(returning: .failure(.cancelled))
    if let flight = flights[key], flight.waiters.isEmpty {
      flights[key] = nil
      counters.cancelledUpstream += 1
      flight.task.cancel()
    }
  }

  /// Runs the upstream call, then answers every waiter still there. A flight abandoned by all its
  /// waiters has already left `flights`, and a newer flight under the same key is not touched.
  private func fly<Value>(_ fetch: Fetch<Value>, _ request: ClientRequest, reload: Bool, flightID: UInt64)
    async
  {
    let result = await route(fetch, request, reload: reload)
    guard let flight = flights[fetch.key], flight.id == flightID else { return }
    flights[fetch.key] = nil
    for continuation in flight.waiters.values { continuation.resume(returning: result) }
  }

  private func newID() -> UInt64 {
    nextID &+= 1
    return nextID
  }

  func metrics() -> GitHubMetrics {
    var result = counters
    result.cacheHits += hitsOffActor.load(ordering: .relaxed)
    result.cacheBytes = cache.totalBytes
    result.cacheEntries = cache.count
    return result
  }

  func snapshots() -> [RateLimitSnapshot] { ledger.snapshots }

  /// Through the shared store when there is one, else straight upstream.
  private func route<Value>(_ fetch: Fetch<Value>, _ request: ClientRequest, reload: Bool) async
    -> Result<Delivered, GitHubError>
  {
    // Kinds that are not shared (avatars: large, per instance, outside the API's limits) stay local.
    if let shared, Value.sharedKind != nil {
      return await loadShared(fetch, request, reload: reload, store: shared)
    }
    return await perform(fetch, request)
  }

  /// One upstream call and the local bookkeeping of its answer (mirrored to the shared ledger).
  func perform<Value>(_ fetch: Fetch<Value>, _ request: ClientRequest) async -> Result<Delivered, GitHubError>
  {
    let outcome = await Self.send(transport, request, decode: fetch.decode)
    let arrived = now()
    switch outcome {
    case .cancelled:
      if let resource = fetch.resource { await refund(resource) }
      return .failure(.cancelled)
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
            resource.name, limit: limits.limit ?? remaining, remaining: remaining,
            reset: RateLimitLedger.boundedReset(limits.reset ?? Int(arrived) + 60, now: Int(arrived)))
        }
      }
      if let error = ResponseClassifier.error(
        status: status, headers: response.headers,
        body: status == 200 ? response.body : redactor.redact(response.body),
        resource: fetch.resource, now: arrived, text: text
      ) {
        return await handle(error, fetch: fetch)
      }
      guard let decoded else { return .failure(.upstream(status: status)) }
      switch decoded {
      case .success(let payload):
        noteSkipped(payload, fetch: fetch)
        storeLocally(fetch.key, payload, etag: response.headers["etag"], expires: arrived + fetch.ttl)
        return .success(Delivered(payload: payload, stale: false))
      case .failure(let error):
        return .failure(error)
      }
    }
  }

  /// Counts the malformed values a fresh payload left out, and logs them in one line.
  private func noteSkipped<Value>(_ payload: Value, fetch: Fetch<Value>) {
    let skipped = payload.skipped
    guard skipped.count > 0 else { return }
    counters.itemsSkipped[fetch.endpoint, default: 0] += skipped.count
    let path =
      fetch.key.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false).dropFirst(3).first.map {
        "/" + $0
      } ?? fetch.key
    log?(
      redactor.redact(
        "github: skipped \(skipped.count) malformed value(s) from \(fetch.endpoint.rawValue) \(path): "
          + (skipped.first ?? "")))
  }

  /// Puts a payload in the local cache, charged for what it holds.
  func storeLocally(_ key: String, _ payload: any CachedPayload, etag: String?, expires: Double) {
    let cost = payload.estimatedBytes + key.utf8.count + 256
    cache.set(key, .init(value: payload, etag: etag, expires: expires, cost: cost))
  }

  private func refund(_ resource: RateLimitResource) async {
    ledger.refund(resource)
    await shared?.refund(resource.name)
  }

  private func handle<Value>(_ error: GitHubError, fetch: Fetch<Value>) async -> Result<
    Delivered, GitHubError
  > {
    switch error {
    case .rateLimited(let resource, let until, let secondary):
      let bounded = ledger.block(resource, until: until, secondary: secondary, now: now())
      await shared?.block(resource.name, until: bounded, secondary: secondary)
      return .failure(.rateLimited(resource: resource, until: bounded, secondary: secondary))
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

  private enum Outcome<Value: CachedPayload>: Sendable {
    /// A response; `decoded` is set for 200 only.
    case answered(ClientResponse, decoded: Result<Value, GitHubError>?)
    case failed(String)
    /// The call was cancelled because no caller waits for it any more.
    case cancelled
  }

  /// The transport call and the decoding, off the actor so other requests proceed meanwhile.
  @concurrent
  private static func send<Value>(
    _ transport: any HTTPClientTransport, _ request: ClientRequest,
    decode: @Sendable ([UInt8], HTTPHeaders) throws(GitHubError) -> Value
  ) async -> Outcome<Value> {
    let response: ClientResponse
    do {
      response = try await transport.execute(request)
    } catch .cancelled {
      return .cancelled
    } catch {
      return .failed(describe(error))
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
