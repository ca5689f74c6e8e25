/// The second level of loading: an item fetches its own details on demand.
public protocol DetailLoader: Sendable {
  /// The list element whose details are loaded.
  associatedtype Item
  /// What is loaded for one item.
  associatedtype Details: Sendable
  /// Loads the details of one item.
  func details(for item: Item) async throws -> Details
}

/// The outcome of loading one item's details, ready for presentation.
public enum DetailState<Details: Sendable>: Sendable {
  /// The details arrived.
  case loaded(Details)
  /// The details are not available now; `retryAfter` is a Unix time in seconds when known.
  case unavailable(reason: String, retryAfter: Int?)

  /// Loads through `loader`, mapping any thrown error through `classify`.
  public static func load<Loader: DetailLoader>(
    _ item: Loader.Item, with loader: Loader,
    classify: @Sendable (any Error) -> ListError = ListError.generic
  ) async -> DetailState<Details> where Loader.Details == Details {
    do {
      return .loaded(try await loader.details(for: item))
    } catch {
      let classified = classify(error)
      return .unavailable(reason: classified.message, retryAfter: classified.retryAfter)
    }
  }
}
