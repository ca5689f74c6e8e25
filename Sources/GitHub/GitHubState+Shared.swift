import CurlClient
import Digests
import HTTP
import SharedStore

/// The shared tier behind the in-process layer: a value another instance stored, a cross-instance
/// lock so one instance calls GitHub while the others wait for its value, and the shared ledger.
/// Every store answer may be "nothing shared" (store down): the local path then runs as without one.
extension GitHubState {
  /// How long a fetching instance holds the lock; if it dies, another takes over after this.
  static let lockSeconds = 5.0
  /// How often a waiting instance looks for the value (bounded short polling).
  static let pollInterval: Duration = .milliseconds(20)
  /// The longest an instance waits for another's value before calling GitHub itself.
  static let maxWaitSeconds = 8.0
  /// How long an expired entry stays in the shared store for ETag revalidation and stale answers.
  static let staleGraceSeconds = 3_600.0

  /// Loads through the shared store: its fresh value, else the value another instance is fetching,
  /// else one upstream call under the shared lock and ledger, whose result is shared.
  func loadShared<Value>(
    _ fetch: Fetch<Value>, _ request: ClientRequest, basis: String?, reload: Bool, store: any SharedStore
  ) async
    -> Result<Delivered, GitHubError>
  {
    let started = now()
    var request = request
    var basis = basis
    if let entry = await sharedEntry(fetch.key, Value.self, store: store) {
      if !reload, now() < entry.expires { return adopt(entry, fetch) }
      if prepareRevalidation(entry, fetch, &request) { basis = fetch.key }
    }
    var waited = false
    while true {
      switch await store.lock(Self.lockName(fetch.key), for: Self.lockSeconds) {
      case .unshared:
        return await callUpstream(fetch, request, basis: basis, store: store)
      case .acquired(let token):
        // A holder that finished between our first read and our lock has stored the value by now.
        if let entry = await sharedEntry(fetch.key, Value.self, store: store),
          isAnswer(entry, reload, started)
        {
          await store.unlock(token)
          return adopt(entry, fetch)
        }
        let result = await callUpstream(fetch, request, basis: basis, store: store)
        if Task.isCancelled {
          // A cancelled task's store calls give up at once; an unstructured task still frees the lock.
          Task { await store.unlock(token) }
        } else {
          await store.unlock(token)
        }
        return result
      case .heldElsewhere:
        if !waited { counters.sharedWaits += 1 }
        waited = true
        if now() - started > Self.maxWaitSeconds {
          return await callUpstream(fetch, request, basis: basis, store: store)
        }
        do { try await Task.sleep(for: Self.pollInterval) } catch { return .failure(.cancelled) }
        if let entry = await sharedEntry(fetch.key, Value.self, store: store),
          isAnswer(entry, reload, started)
        {
          return adopt(entry, fetch)
        }
      }
    }
  }

  /// The shared lock's name for a cache key: its SHA-256, so that no lock (nor the append-only file
  /// that records it) names a query or a repository in clear, whoever asked for it.
  static func lockName(_ key: String) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var name: [UInt8] = []
    name.reserveCapacity(64)
    for byte in SHA256.hash(Array(key.utf8)) {
      name.append(digits[Int(byte >> 4)])
      name.append(digits[Int(byte & 0xF)])
    }
    return String(decoding: name, as: UTF8.self)
  }

  /// A value that answers a waiting request: fresh, or for a reload stored after the reload began
  /// (by the instance that held the lock meanwhile).
  private func isAnswer<Value>(_ entry: SharedEntry<Value>, _ reload: Bool, _ started: Double) -> Bool {
    reload ? entry.storedAt > started : now() < entry.expires
  }

  /// The decoded shared entry under `key` of kind `Value`, or nil (absent, malformed or foreign: a
  /// miss). Only public values are ever stored (see `share`), but a value read back is checked too.
  private func sharedEntry<Value: CachedPayload>(_ key: String, _: Value.Type, store: any SharedStore) async
    -> SharedEntry<Value>?
  {
    guard let bytes = await store.value(for: key) else { return nil }
    guard let entry = PayloadCodec.decode(bytes, as: Value.self), entry.payload.saysPublic != false else {
      counters.sharedRejected += 1
      return nil
    }
    return entry
  }

  /// Takes a fresh shared entry into the local layer (until the same expiry) and answers with it.
  private func adopt<Value>(_ entry: SharedEntry<Value>, _ fetch: Fetch<Value>) -> Result<
    Delivered, GitHubError
  > {
    counters.sharedHits += 1
    storeLocally(fetch.key, entry.payload, etag: entry.etag, expires: entry.expires)
    learn(entry.payload)
    return .success(Delivered(payload: entry.payload, stale: false))
  }

  /// The visibilities a search page adopted from the shared store tells.
  private func learn(_ payload: some CachedPayload) {
    if let page = payload as? SearchPage { facts.learn(page.items, until: now() + visibilityLifetime) }
  }

  /// Keeps an expired shared entry locally when this instance has none, so a 304 or an upstream
  /// failure can still use it, and revalidates with its ETag; true when the request now carries it.
  private func prepareRevalidation<Value>(
    _ entry: SharedEntry<Value>, _ fetch: Fetch<Value>, _ request: inout ClientRequest
  ) -> Bool {
    guard cache.peek(fetch.key) == nil || request.headers["if-none-match"] == nil else { return false }
    storeLocally(fetch.key, entry.payload, etag: entry.etag, expires: entry.expires)
    guard let etag = entry.etag else { return false }
    request.headers.replaceOrAdd(name: "If-None-Match", value: etag)
    return true
  }

  /// One upstream call if the shared ledger allows it; a fresh public result is stored for the others.
  private func callUpstream<Value>(
    _ fetch: Fetch<Value>, _ request: ClientRequest, basis: String?, store: any SharedStore
  )
    async
    -> Result<Delivered, GitHubError>
  {
    if let refusal = await reserveShared(fetch, store: store) { return .failure(refusal) }
    let result = await perform(fetch, request, basis: basis)
    if case .success(let delivered) = result, delivered.sharable { await share(fetch.key, Value.self, store) }
    return result
  }

  /// Loads a caller's own answer: never through the shared store's locks, and its value stays in
  /// this process. With a shared store, the URL's public entry lends its ETag (a 304 proves the
  /// caller's answer is that public one), the call counts on the shared ledger, and an answer that
  /// turns out public is shared under the URL.
  func loadOwn<Value>(
    _ fetch: Fetch<Value>, _ request: ClientRequest, basis: String?, store: (any SharedStore)?
  ) async -> Result<Delivered, GitHubError> {
    guard let store, let publicKey = fetch.scope.publicKey else {
      return await perform(fetch, request, basis: basis)
    }
    var request = request
    var basis = basis
    if basis == nil, let entry = await sharedEntry(publicKey, Value.self, store: store), let etag = entry.etag
    {
      storeLocally(publicKey, entry.payload, etag: etag, expires: entry.expires)
      request.headers.replaceOrAdd(name: "If-None-Match", value: etag)
      basis = publicKey
    }
    if let refusal = await reserveShared(fetch, store: store) { return .failure(refusal) }
    let result = await perform(fetch, request, basis: basis)
    if case .success(let delivered) = result, delivered.sharable { await share(publicKey, Value.self, store) }
    return result
  }

  /// The shared ledger's refusal of one more call, or nil when it may be made (then it is counted).
  private func reserveShared<Value>(_ fetch: Fetch<Value>, store: any SharedStore) async -> GitHubError? {
    guard let resource = fetch.resource,
      let refusal = await store.reserve(Self.ledgerName(resource, fetch.reader), now: now())
    else { return nil }
    let time = now()
    let until = withLedger(fetch.reader) { ledger in
      ledger.refund(resource)
      return ledger.block(resource, until: refusal.until, secondary: refusal.secondary, now: time)
    }
    counters.rateLimitedLocally += 1
    return .rateLimited(resource: resource, until: until, secondary: refusal.secondary)
  }

  /// Stores the local entry under `key` (a URL: only public entries are kept under one) in the shared
  /// store, unless it says it is not public.
  private func share<Value: CachedPayload>(_ key: String, _: Value.Type, _ store: any SharedStore) async {
    guard let entry = cache.peek(key), let payload = entry.value as? Value, payload.saysPublic != false else {
      return
    }
    let arrived = now()
    let shared = SharedEntry(payload: payload, etag: entry.etag, expires: entry.expires, storedAt: arrived)
    if let bytes = PayloadCodec.encode(shared) {
      await store.setValue(bytes, for: key, keepFor: max(1, entry.expires - arrived) + Self.staleGraceSeconds)
    }
  }
}
