import Sessions

extension SessionBook.Lookup {
  /// A lookup's outcome without the session, so that a test states the one it expects in one line.
  enum Outcome: Equatable {
    case invalid, ended, expired, found, unavailable
  }

  /// Which outcome this is.
  var outcome: Outcome {
    switch self {
    case .invalid: .invalid
    case .ended: .ended
    case .expired: .expired
    case .found: .found
    case .unavailable: .unavailable
    }
  }

  /// The session found; nil for the other outcomes.
  var session: Session? {
    guard case .found(let session) = self else { return nil }
    return session
  }
}
