import Encodings

/// A value the client caches and hands out: a search page, a star history, a repository's
/// visibility or an avatar.
///
/// The cache holds values of every kind under their URLs, so it stores them as `any CachedPayload`;
/// `GitHubClient` gets its own type back with one cast. A kind with a `sharedKind` travels through
/// a shared store in `PayloadCodec`'s form; one without (avatars) stays in this instance.
protocol CachedPayload: Sendable {
  /// Estimated bytes held, charged against the cache bound (see `CachedPayload+Size`).
  var estimatedBytes: Int { get }
  /// Malformed upstream values left out when this value was decoded.
  var skipped: Skipped { get }
  /// What the value itself says of its visibility: true when GitHub called everything in it public,
  /// false when it holds anything else (then it is only ever its fetcher's own, whatever the scope
  /// it was fetched under), nil when it cannot tell (histories, avatars: the scope decided before
  /// the fetch stands).
  var saysPublic: Bool? { get }
  /// The codec's tag for this kind, or nil when values of this kind are never shared.
  static var sharedKind: PayloadCodec.Kind? { get }
  /// Appends the value's shared form (only called when `sharedKind` is set).
  func write(to writer: inout ByteWriter)
  /// Reads a value written by `write(to:)`, or nil when the bytes are not a well-formed one.
  static func read(from reader: inout ByteReader) -> Self?
}

extension SearchPage: CachedPayload {
  var saysPublic: Bool? { items.allSatisfy(\.isPublic) }
  static var sharedKind: PayloadCodec.Kind? { .search }
  func write(to writer: inout ByteWriter) { PayloadCodec.write(self, to: &writer) }
  static func read(from reader: inout ByteReader) -> SearchPage? { PayloadCodec.readSearchPage(&reader) }
}

extension StarHistory: CachedPayload {
  var saysPublic: Bool? { nil }
  static var sharedKind: PayloadCodec.Kind? { .history }
  func write(to writer: inout ByteWriter) { PayloadCodec.write(self, to: &writer) }
  static func read(from reader: inout ByteReader) -> StarHistory? { PayloadCodec.readHistory(&reader) }
}

/// Avatars are large and per instance: cached locally, never shared, so the codec never writes or
/// reads one (it checks `sharedKind` first). Their bytes are not decoded, so nothing is skipped.
extension Avatar: CachedPayload {
  var skipped: Skipped { Skipped() }
  var saysPublic: Bool? { nil }
  static var sharedKind: PayloadCodec.Kind? { nil }
  func write(to writer: inout ByteWriter) {}
  static func read(from reader: inout ByteReader) -> Avatar? { nil }
}

/// Whether one repository is public, as `GET /repos/{owner}/{repo}` says (`private` and
/// `visibility`; anything but a clear "public" is not). Asked before a star history is fetched with a
/// token that may see private repositories, when no search answer has told yet.
struct RepositoryVisibility: Sendable, Equatable {
  var isPublic: Bool
  var skipped = Skipped()
}

/// Only a public answer is shared: it holds one flag, and its key is a public repository's URL.
extension RepositoryVisibility: CachedPayload {
  var saysPublic: Bool? { isPublic }
  var estimatedBytes: Int { 64 }
  static var sharedKind: PayloadCodec.Kind? { .visibility }
  func write(to writer: inout ByteWriter) { writer.bool(isPublic) }
  static func read(from reader: inout ByteReader) -> RepositoryVisibility? {
    reader.bool().map { RepositoryVisibility(isPublic: $0) }
  }
}

/// A cached or fetched value, whether it came from an expired entry after an upstream failure,
/// whether it is its fetcher's own (then nobody else waiting for the same URL may take it), and
/// whether it was just fetched and is public (then it goes to the shared store under its URL).
struct Delivered: Sendable {
  var payload: any CachedPayload
  var stale: Bool
  var own = false
  var sharable = false
}
