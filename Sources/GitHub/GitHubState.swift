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
    /// The reader it is made as (nil: the server), whose own refusals others do not take as theirs.
    var owner: Int?
    var waiters: [UInt64: Waiter] = [:]
  }

  /// A caller waiting for a flight, and whom it is calling as.
  private struct Waiter {
    var continuation: CheckedContinuation<Answer, Never>
    var owner: Int?
  }

  /// What a waiter gets: the flight's result, or a refusal or an answer that concerned the flight's
  /// caller only (their rate limit, their revoked token, an answer that is theirs alone), so the
  /// waiter loads again as itself.
  private enum Answer {
    case result(Result<Delivered, GitHubError>)
    case retry(GitHubError)
  }

  /// How often a caller loads again after flights of others were refused for reasons of their own.
  static let maxRetries = 3
  /// Most reader ledgers kept; idle ones are dropped first (they are learnt again from headers).
  static let maxReaderLedgers = 10_000

  private let transport: any HTTPClientTransport
  let now: @Sendable () -> Double
  private let redactor: Redactor
  /// The tier shared with other instances, if one is configured (see `GitHubState+Shared`).
  private let shared: (any SharedStore)?
  private let text: UpstreamText
  private let log: (@Sendable (String) -> Void)?
  /// What the answers taught about who sees what (shared with the client, which scopes fetches by it).
  let facts: PrivacyFacts
  /// How long a repository's visibility learnt from an answer is trusted, in seconds.
  let visibilityLifetime: Double
  /// Read and written on the actor, except `freshHit`'s lookups.
  nonisolated let cache: LockedResponseCache<any CachedPayload>
  /// Hits answered by `freshHit`, off the actor (added to `counters.cacheHits` in `metrics()`).
  private nonisolated let hitsOffActor = Atomic<Int>(0)
  private var flights: [String: Flight] = [:]
  private var nextID: UInt64 = 0
  /// The server token's (or the anonymous) ledger.
  var ledger = RateLimitLedger()
  /// Each signed-in reader's ledger, by GitHub user id.
  var readerLedgers: [Int: RateLimitLedger] = [:]
  var counters = GitHubMetrics()

  init(
    transport: any HTTPClientTransport, now: @escaping @Sendable () -> Double, cacheBytes: Int,
    redactor: Redactor, log: (@Sendable (String) -> Void)? = nil, shared: (any SharedStore)? = nil,
    facts: PrivacyFacts = PrivacyFacts(serverAccess: nil), visibilityLifetime: Double = 600
  ) {
    self.facts = facts
    self.visibilityLifetime = visibilityLifetime
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

  /// Whether a fresh value is cached under `key` (a probe: not counted as a hit).
  nonisolated func isFresh(_ key: String) -> Bool {
    guard let entry = cache.peek(key) else { return false }
    return now() < entry.expires
  }

  /// Serves from a fresh entry, joins an identical request in flight, refuses an exhausted
  /// resource locally, or starts one upstream call (conditional when an ETag is cached).
  func load<Value>(_ fetch: Fetch<Value>, reload: Bool) async -> Result<Delivered, GitHubError> {
    var retries = 0
    while true {
      switch await attempt(fetch, reload: reload) {
      case .result(let result): return result
      case .retry(let error):
        retries += 1
        if retries > Self.maxRetries { return .failure(error) }
      }
    }
  }

  private func attempt<Value>(_ fetch: Fetch<Value>, reload: Bool) async -> Answer {
    if Task.isCancelled { return .result(.failure(.cancelled)) }
    let start = now()
    if !reload, let entry = cache.get(fetch.key), start < entry.expires {
      counters.cacheHits += 1
      return .result(.success(Delivered(payload: entry.value, stale: false)))
    }
    let owner = fetch.reader?.id
    if flights[fetch.key] != nil {
      counters.coalesced += 1
      return await wait(for: fetch.key, owner: owner)
    }
    counters.cacheMisses += 1
    if let resource = fetch.resource,
      let refusal = withLedger(fetch.reader, { $0.refusal(resource, now: start) })
    {
      counters.rateLimitedLocally += 1
      return .result(.failure(refusal))
    }
    var request = fetch.request
    // The entry a 304 would confirm: the caller's own, else (for an own answer) the public one, whose
    // ETag proves the caller's answer equal to it.
    var basis: String?
    for key in [fetch.key, fetch.scope.publicKey] {
      guard let key, let etag = cache.peek(key)?.etag else { continue }
      request.headers.replaceOrAdd(name: "If-None-Match", value: etag)
      basis = key
      break
    }
    if let resource = fetch.resource { withLedger(fetch.reader) { $0.reserve(resource, now: start) } }
    let flightID = newID()
    let task = Task { [basis] in
      await self.fly(fetch, request, basis: basis, reload: reload, flightID: flightID)
    }
    flights[fetch.key] = Flight(id: flightID, task: task, owner: owner)
    return await wait(for: fetch.key, owner: owner)
  }

  /// Runs `body` on the ledger of `reader` (the server's when nil), making room for a new reader's.
  func withLedger<T>(_ reader: ReaderScope?, _ body: (inout RateLimitLedger) -> T) -> T {
    guard let reader else { return body(&ledger) }
    if readerLedgers[reader.id] == nil, readerLedgers.count >= Self.maxReaderLedgers {
      let seconds = Int(now())
      readerLedgers = readerLedgers.filter { !$0.value.isIdle(now: seconds) }
      if readerLedgers.count >= Self.maxReaderLedgers { readerLedgers.removeAll(keepingCapacity: true) }
    }
    return body(&readerLedgers[reader.id, default: RateLimitLedger()])
  }

  /// The shared ledger's name of `resource` for `reader`: GitHub's name for the server, and
  /// `reader:<id>:<name>` for a reader.
  static func ledgerName(_ resource: RateLimitResource, _ reader: ReaderScope?) -> String {
    guard let reader else { return resource.name }
    return reader.ledgerName + ":" + resource.name
  }

  /// Waits for the flight under `key` as one of its waiters. A caller whose task is cancelled gets
  /// `.cancelled` at once; the upstream call is cancelled when its last waiter has gone.
  private func wait(for key: String, owner: Int?) async -> Answer {
    let waiterID = newID()
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Answer, Never>) in
        guard flights[key] != nil else {
          continuation.resume(returning: .result(.failure(.cancelled)))
          return
        }
        flights[key]?.waiters[waiterID] = Waiter(continuation: continuation, owner: owner)
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
    guard let waiter = flights[key]?.waiters.removeValue(forKey: waiterID) else { return }
    waiter.continuation.resume(returning: .result(.failure(.cancelled)))
    if let flight = flights[key], flight.waiters.isEmpty {
      flights[key] = nil
      counters.cancelledUpstream += 1
      flight.task.cancel()
    }
  }

  /// Runs the upstream call, then answers every waiter still there. A flight abandoned by all its
  /// waiters has already left `flights`, and a newer flight under the same key is not touched.
  private func fly<Value>(
    _ fetch: Fetch<Value>, _ request: ClientRequest, basis: String?, reload: Bool, flightID: UInt64
  )
    async
  {
    let result = await route(fetch, request, basis: basis, reload: reload)
    guard let flight = flights[fetch.key], flight.id == flightID else { return }
    flights[fetch.key] = nil
    let personal: GitHubError?
    switch result {
    case .failure(let error) where Self.concernsCallerOnly(error): personal = error
    // An answer that is the caller's own: a waiter calling as someone else loads as themselves.
    case .success(let delivered) where delivered.own: personal = .cancelled
    default: personal = nil
    }
    for waiter in flight.waiters.values {
      if let personal, waiter.owner != flight.owner {
        waiter.continuation.resume(returning: .retry(personal))
      } else {
        waiter.continuation.resume(returning: .result(result))
      }
    }
  }

  /// Refusals that say something about the caller's token, not about the data: a waiter calling as
  /// someone else must not take them as its own.
  private static func concernsCallerOnly(_ error: GitHubError) -> Bool {
    switch error {
    case .rateLimited, .unauthorized, .forbidden: return true
    default: return false
    }
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

  /// The ledger of the reader with GitHub user id `readerID`, or the server's for nil.
  func snapshots(readerID: Int?) -> [RateLimitSnapshot] {
    guard let readerID else { return ledger.snapshots }
    return readerLedgers[readerID]?.snapshots ?? []
  }

  /// Through the shared store when there is one, else straight upstream; a caller's own answer
  /// never goes through the shared store's values or locks.
  private func route<Value>(_ fetch: Fetch<Value>, _ request: ClientRequest, basis: String?, reload: Bool)
    async -> Result<Delivered, GitHubError>
  {
    if fetch.scope != .shared {
      return await loadOwn(fetch, request, basis: basis, store: Value.sharedKind == nil ? nil : shared)
    }
    // Kinds that are not shared (avatars: large, per instance, outside the API's limits) stay local.
    if let shared, Value.sharedKind != nil {
      return await loadShared(fetch, request, basis: basis, reload: reload, store: shared)
    }
    return await perform(fetch, request, basis: basis)
  }

  /// One upstream call and the local bookkeeping of its answer (mirrored to the shared ledger).
  /// `basis` is the key of the entry whose ETag the request carries (a 304 answers with it).
  func perform<Value>(_ fetch: Fetch<Value>, _ request: ClientRequest, basis: String?) async
    -> Result<Delivered, GitHubError>
  {
    let outcome = await Self.send(transport, request, decode: fetch.decode)
    let arrived = now()
    let redactor = fetch.reader?.redactor ?? self.redactor
    switch outcome {
    case .cancelled:
      if let resource = fetch.resource { await refund(resource, fetch.reader) }
      return .failure(.cancelled)
    case .failed(let message):
      counters.recordCall(fetch.endpoint, status: 0)
      if let resource = fetch.resource { await refund(resource, fetch.reader) }
      return staleOr(.network(redactor.redact(message)), key: fetch.key)
    case .answered(let response, let decoded):
      let status = response.status.code
      counters.recordCall(fetch.endpoint, status: status)
      if status == 304 {
        if let resource = fetch.resource { await refund(resource, fetch.reader) }
        guard let basis, let entry = cache.peek(basis) else { return .failure(.upstream(status: 304)) }
        cache.refresh(basis, expires: arrived + fetch.ttl, etag: response.headers["etag"])
        counters.revalidated += 1
        guard basis == fetch.key else {
          // The public entry answered an own call: GitHub says the caller's answer is that one.
          storeLocally(fetch.key, entry.value, etag: entry.etag, expires: arrived + fetch.ttl)
          return .success(Delivered(payload: entry.value, stale: false, sharable: true))
        }
        // The caller's own entry stays theirs unless it says it is public.
        let own = fetch.scope != .shared && entry.value.saysPublic != true
        return .success(
          Delivered(payload: entry.value, stale: false, own: own, sharable: fetch.scope == .shared))
      }
      if let resource = fetch.resource, let limits = RateLimitHeaders.parse(response.headers) {
        withLedger(fetch.reader) { $0.record(limits, resource: resource, now: arrived) }
        if let shared, let remaining = limits.remaining {
          await shared.record(
            Self.ledgerName(resource, fetch.reader), limit: limits.limit ?? remaining, remaining: remaining,
            reset: RateLimitLedger.boundedReset(limits.reset ?? Int(arrived) + 60, now: Int(arrived)))
        }
      }
      if let reader = fetch.reader, Self.refusesReader(status: status, headers: response.headers, reader) {
        return .failure(.unauthorized)
      }
      if let error = ResponseClassifier.error(
        status: status, headers: response.headers,
        body: status == 200 ? response.body : redactor.redact(response.body),
        resource: fetch.resource, now: arrived,
        text: fetch.reader.map { UpstreamText(redactor: $0.redactor) } ?? text
      ) {
        return await handle(error, fetch: fetch)
      }
      guard let decoded else { return .failure(.upstream(status: status)) }
      switch decoded {
      case .success(let payload):
        noteSkipped(payload, fetch: fetch)
        return .success(keep(payload, fetch: fetch, etag: response.headers["etag"], arrived: arrived))
      case .failure(let error):
        return .failure(error)
      }
    }
  }

  /// Caches a fresh answer where its items say it belongs: screened first for an anonymous reader
  /// (what is not public is left out, counted and logged), then under the URL when it is public
  /// (and, for an own call, the caller's key too), else under the caller's own key only.
  private func keep<Value>(_ payload: Value, fetch: Fetch<Value>, etag: String?, arrived: Double) -> Delivered
  {
    var payload = payload
    var etag = etag
    if let page = payload as? SearchPage { facts.learn(page.items, until: arrived + visibilityLifetime) }
    if let screen = fetch.screen {
      let withheld = screen(&payload)
      if withheld > 0 {
        // The ETag is the unscreened answer's: a 304 to it must not stand for the screened one.
        etag = nil
        withhold(withheld, fetch.endpoint)
      }
    }
    let expires = arrived + fetch.ttl
    // What the items say; a kind that cannot tell is what its scope made it.
    if payload.saysPublic ?? (fetch.scope == .shared) {
      storeLocally(fetch.key, payload, etag: etag, expires: expires)
      if let publicKey = fetch.scope.publicKey {
        storeLocally(publicKey, payload, etag: etag, expires: expires)
      }
      return Delivered(payload: payload, stale: false, sharable: true)
    }
    counters.ownAnswers += 1
    if fetch.scope == .shared {
      // The headers said this caller sees public data only; the items say otherwise. From now on
      // their answers are their own (and an old shared entry under this URL is not touched).
      if let reader = fetch.reader {
        facts.contradicted(reader: reader.id)
        storeLocally(reader.ownKey(fetch.key), payload, etag: etag, expires: expires)
      } else {
        facts.serverSawPrivate()
        storeLocally(AnswerScope.serverKey(fetch.key), payload, etag: etag, expires: expires)
      }
    } else {
      storeLocally(fetch.key, payload, etag: etag, expires: expires)
    }
    return Delivered(payload: payload, stale: false, own: true)
  }

  /// Counts what was left out of an anonymous reader's answer, in one log line that names no repository.
  func withhold(_ count: Int, _ endpoint: GitHubEndpoint) {
    counters.privateWithheld += count
    log?(
      "github: left out \(count) non-public item(s) of a \(endpoint.rawValue) answer for an anonymous reader "
        + "(the server's token sees private repositories)")
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
      (fetch.reader?.redactor ?? redactor).redact(
        "github: skipped \(skipped.count) malformed value(s) from \(fetch.endpoint.rawValue) \(path): "
          + (skipped.first ?? "")))
  }

  /// Puts a payload in the local cache, charged for what it holds.
  func storeLocally(_ key: String, _ payload: any CachedPayload, etag: String?, expires: Double) {
    let cost = payload.estimatedBytes + key.utf8.count + 256
    cache.set(key, .init(value: payload, etag: etag, expires: expires, cost: cost))
  }

  private func refund(_ resource: RateLimitResource, _ reader: ReaderScope?) async {
    withLedger(reader) { $0.refund(resource) }
    await shared?.refund(Self.ledgerName(resource, reader))
  }

  /// Whether an answer to a reader's call means their token is unusable: a 401, or (defence in
  /// depth) a token whose scopes now grant `repo` although the session said public only, so that the
  /// reader signs in again and their session states what the token may see.
  static func refusesReader(status: Int, headers: HTTPHeaders, _ reader: ReaderScope) -> Bool {
    if status == 401 { return true }
    guard reader.access == .publicOnly, status == 200, let scopes = headers["x-oauth-scopes"] else {
      return false
    }
    return RepositoryAccess(scopesHeader: scopes) == .repoScope
  }

  private func handle<Value>(_ error: GitHubError, fetch: Fetch<Value>) async -> Result<
    Delivered, GitHubError
  > {
    switch error {
    case .rateLimited(let resource, let until, let secondary):
      let time = now()
      let bounded = withLedger(fetch.reader) {
        $0.block(resource, until: until, secondary: secondary, now: time)
      }
      await shared?.block(Self.ledgerName(resource, fetch.reader), until: bounded, secondary: secondary)
      return .failure(.rateLimited(resource: resource, until: bounded, secondary: secondary))
    case .upstream(let status) where status >= 500:
      return staleOr(error, key: fetch.key)
    case .validation(let message):
      return .failure(.validation((fetch.reader?.redactor ?? redactor).redact(message)))
    case .forbidden(let message):
      return .failure(.forbidden((fetch.reader?.redactor ?? redactor).redact(message)))
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
