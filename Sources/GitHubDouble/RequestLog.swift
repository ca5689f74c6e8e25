/// One GitHub-endpoint request the double served, with wall-clock times, so tests can check *when*
/// a client called (e.g. that nothing asked for an exhausted resource before its reset).
public struct DoubleRequestRecord: Sendable, Equatable {
  /// The endpoint.
  public var endpoint: DoubleEndpoint
  /// Unix milliseconds when the request reached the double (before any injected latency).
  public var arrivedMs: Int
  /// Unix milliseconds when the answer was ready, or when the client went away.
  public var finishedMs: Int
  /// The status sent; 0 when the client went away first.
  public var status: Int
  /// Whom the request was made as: a signed-in user's login, `server` (any other credential) or
  /// `anonymous` (none, or a token the double never issued).
  public var identity: String = "anonymous"
  /// The OAuth `error` of a code exchange or refresh that GitHub answers with status 200 and error
  /// JSON (`bad_refresh_token`, …); nil otherwise.
  public var error: String? = nil
}

/// The most recent requests, oldest first, bounded so a long benchmark cannot grow it without end.
struct RequestLog {
  /// Records kept.
  static let capacity = 8192

  private(set) var records: [DoubleRequestRecord] = []
  /// Records dropped to stay within `capacity`.
  private(set) var dropped = 0

  mutating func append(_ record: DoubleRequestRecord) {
    // Trimming in halves keeps the amortised cost per append constant.
    if records.count >= 2 * Self.capacity {
      records.removeFirst(Self.capacity)
      dropped += Self.capacity
    }
    records.append(record)
  }

  /// `{"dropped":N,"requests":[{"endpoint":"search","arrived_ms":…,"finished_ms":…,"status":200,
  /// "identity":"anonymous"}]}` (with `"error"` for a refused exchange or refresh), optionally for
  /// one endpoint only.
  func json(endpoint: DoubleEndpoint?) -> [UInt8] {
    var w = JSONWriter()
    w.objectStart()
    w.field("dropped", dropped)
    w.key("requests")
    w.arrayStart()
    for r in records where endpoint == nil || r.endpoint == endpoint {
      w.objectStart()
      w.field("endpoint", r.endpoint.rawValue)
      w.field("arrived_ms", r.arrivedMs)
      w.field("finished_ms", r.finishedMs)
      w.field("status", r.status)
      w.field("identity", r.identity)
      if let error = r.error { w.field("error", error) }
      w.objectEnd()
    }
    w.arrayEnd()
    w.objectEnd()
    return w.bytes
  }
}
