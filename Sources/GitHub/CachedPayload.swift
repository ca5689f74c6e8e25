import SharedStore

/// A value the client caches and hands out: a search page, a star history or an avatar.
///
/// The cache holds values of every kind under their URLs, so it stores them as `any CachedPayload`;
/// `GitHubClient` gets its own type back with one cast. A kind with a `sharedKind` travels through
/// a shared store in `PayloadCodec`'s form; one without (avatars) stays in this instance.
protocol CachedPayload: Sendable {
  /// Estimated bytes held, charged against the cache bound (see `CachedPayload+Size`).
  var estimatedBytes: Int { get }
  /// Malformed upstream values left out when this value was decoded.
  var skipped: Skipped { get }
  /// The codec's tag for this kind, or nil when values of this kind are never shared.
  static var sharedKind: PayloadCodec.Kind? { get }
  /// Appends the value's shared form (only called when `sharedKind` is set).
  func write(to writer: inout ByteWriter)
  /// Reads a value written by `write(to:)`, or nil when the bytes are not a well-formed one.
  static func read(from reader: inout ByteReader) -> Self?
}

extension SearchPage: CachedPayload {
  static var sharedKind: PayloadCodec.Kind? { .search }
  func write(to writer: inout ByteWriter) { PayloadCodec.write(self, to: &writer) }
  static func read(from reader: inout ByteReader) -> SearchPage? { PayloadCodec.readSearchPage(&reader) }
}

extension StarHistory: CachedPayload {
  static var sharedKind: PayloadCodec.Kind? { .history }
  func write(to writer: inout ByteWriter) { PayloadCodec.write(self, to: &writer) }
  static func read(from reader: inout ByteReader) -> StarHistory? { PayloadCodec.readHistory(&reader) }
}

/// Avatars are large and per instance: cached locally, never shared, so the codec never writes or
/// reads one (it checks `sharedKind` first). Their bytes are not decoded, so nothing is skipped.
extension Avatar: CachedPayload {
  var skipped: Skipped { Skipped() }
  static var sharedKind: PayloadCodec.Kind? { nil }
  func write(to writer: inout ByteWriter) {}
  static func read(from reader: inout ByteReader) -> Avatar? { nil }
}

/// A cached or fetched value and whether it came from an expired entry after an upstream failure.
struct Delivered: Sendable {
  var payload: any CachedPayload
  var stale: Bool
}
