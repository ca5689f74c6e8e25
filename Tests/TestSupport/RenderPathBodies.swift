/// What a scripted GitHub answers on the render path, for property tests and fuzzing of arbitrary
/// upstream bodies: `search` for the first search page, an empty page after it (so a list ends
/// after the scripted page), and `history` for every star history. Plain Swift, so that a fuzz target
/// can compile it too.
///
/// ```swift
/// let bodies = RenderPathBodies(search: Array(page.utf8), history: Array("[]".utf8))
/// let body = bodies.body(for: request.url)
/// ```
public struct RenderPathBodies: Sendable {
  /// The first search page's body.
  public var search: [UInt8]
  /// Every star history's body.
  public var history: [UInt8]

  /// A search page holding no repositories.
  public static let emptySearchPage = Array(#"{"total_count":0,"items":[]}"#.utf8)

  /// Bodies for `search` and `history`.
  public init(search: [UInt8] = [], history: [UInt8] = []) {
    self.search = search
    self.history = history
  }

  /// The body GitHub answers `url` with.
  public func body(for url: String) -> [UInt8] {
    if url.contains("/stargazers/history") { return history }
    return url.hasSuffix("&page=1") ? search : Self.emptySearchPage
  }
}
