/// Why a list has no further batches.
public enum EndReason: Sendable, Equatable {
  /// The upstream ran out; the payload is how many distinct items the list holds.
  case noMoreResults(Int)
  /// The upstream's result cap stopped the list although more results exist.
  case capReached(Int)
}

/// A failure while fetching a batch, already classified for presentation.
public struct ListError: Error, Sendable, Equatable {
  /// A human-readable reason, safe to show (it is escaped by the template engine).
  public var message: String
  /// Whether asking again may succeed (network blips, 5xx, rate limits).
  public var retryable: Bool
  /// Unix time in seconds after which a retry can succeed (rate limits); nil if unknown.
  public var retryAfter: Int?

  /// Creates a classified error.
  public init(message: String, retryable: Bool, retryAfter: Int? = nil) {
    self.message = message
    self.retryable = retryable
    self.retryAfter = retryAfter
  }

  /// The fallback classification: any error is shown by its description and assumed transient.
  public static func generic(_ error: any Error) -> ListError {
    ListError(message: String(describing: error), retryable: true)
  }
}

/// What a batch means for the list as a whole.
public enum ListState: Sendable, Equatable {
  /// Items are present and more may follow at `nextCursor`.
  case items
  /// The list has no items at all.
  case empty
  /// The list ends with this batch (which may still carry the last items).
  case end(EndReason)
  /// The batch could not be fetched; retry at the same cursor.
  case error(ListError)
}
