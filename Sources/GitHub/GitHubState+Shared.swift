import CurlClient
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
    _ fetch: Fetch<Value>, _ request: ClientRequest, reload: Bool, store: any SharedStore
  ) async
    -> Result<Delivered, GitHubError>
  {
    let started = now()
    var request = request
    if let entry = await sharedEntry(fetch, store: store) {
      if !reload, now() < entry.expires { return adopt(entry, fetch) }
      prepareRevalidation(entry, fetch, &request)
    }
    var waited = false
    while true {
      switch await store.lock(fetch.key, for: Self.lockSeconds) {
      case .unshared:
        return await callUpstream(fetch, request, store: store)
      case .acquired(let token):
        // A holder that finished between our first read and our lock has stored the value by now.
        if let entry = await sharedEntry(fetch, store: store), isAnswer(entry, reload, started) {
          await store.unlock(token)
          return adopt(entry, fetch)
        }
        let result = await callUpstream(fetch, request, store: store)
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
        if now() - started > Self.maxWaitSeconds { return await callUpstream(fetch, request, store: store) }
        do { try await Task.sleep(for: Self.pollInterval) } catch { return .failure(.cancelled) }
        if let entry = await sharedEntry(fetch, store: store), isAnswer(entry, reload, started) {
          return adopt(entry, fetch)
        }
      }
    }
  }

  /// A value that answers a waiting request: fresh, or for a reload stored after the reload began
  /// (by the instance that held the lock meanwhile).
  private func isAnswer<Value>(_ entry: SharedEntry<Value>, _ reload: Bool, _ started: Double) -> Bool {
    reload ? entry.storedAt > started : now() < entry.expires
  }

  /// The decoded shared entry of the fetch's kind, or nil (absent, malformed or foreign: a miss).
  private func sharedEntry<Value>(_ fetch: Fetch<Value>, store: any SharedStore) async -> SharedEntry<Value>?
  {
    guard let bytes = await store.value(for: fetch.key) else { return nil }
    guard let entry = PayloadCodec.decode(bytes, as: Value.self) else {
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
    return .success(Delivered(payload: entry.payload, stale: false))
  }

  /// Keeps an expired shared entry locally when this instance has none, so a 304 or an upstream
  /// failure can still use it, and revalidates with its ETag.
  private func prepareRevalidation<Value>(
    _ entry: SharedEntry<Value>, _ fetch: Fetch<Value>, _ request: inout ClientRequest
  ) {
    guard cache.peek(fetch.key) == nil || request.headers["if-none-match"] == nil else { return }
    storeLocally(fetch.key, entry.payload, etag: entry.etag, expires: entry.expires)
    if let etag = entry.etag { request.headers.replaceOrAdd(name: "If-None-Match", value: etag) }
  }

  /// One upstream call if the shared ledger allows it; a fresh result is stored for the others.
  private func callUpstream<Value>(_ fetch: Fetch<Value>, _ request: ClientRequest, store: any SharedStore)
    async
    -> Result<Delivered, GitHubError>
  {
    if let resource = fetch.resource,
      let refusal = await store.reserve(Self.ledgerName(resource, fetch.reader), now: now())
    {
      let time = now()
      let until = withLedger(fetch.reader) { ledger in
        ledger.refund(resource)
        return ledger.block(resource, until: refusal.until, secondary: refusal.secondary, now: time)
      }
      counters.rateLimitedLocally += 1
      return .failure(.rateLimited(resource: resource, until: until, secondary: refusal.secondary))
    }
    let result = await perform(fetch, request)
    if case .success(let delivered) = result, !delivered.stale, let entry = cache.peek(fetch.key),
      let payload = entry.value as? Value
    {
      let arrived = now()
      let shared = SharedEntry(
        payload: payload, etag: entry.etag, expires: entry.expires, storedAt: arrived)
      if let bytes = PayloadCodec.encode(shared) {
        await store.setValue(
          bytes, for: fetch.key, keepFor: max(1, entry.expires - arrived) + Self.staleGraceSeconds)
      }
    }
    return result
  }
}
