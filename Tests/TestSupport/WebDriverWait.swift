/// Polls `condition` until it returns a value, then returns that value.
/// Errors thrown by the condition count as "not yet" and the last one is reported on timeout.
public func waitForValue<T>(
  _ description: String, timeout: Duration = .seconds(10), poll: Duration = .milliseconds(100),
  isolation: isolated (any Actor)? = #isolation, _ condition: () async throws -> T?
) async throws -> T {
  let deadline = ContinuousClock.now + timeout
  var lastError: (any Error)?
  while true {
    do {
      if let value = try await condition() { return value }
      lastError = nil
    } catch {
      lastError = error
    }
    guard ContinuousClock.now < deadline else {
      let suffix = lastError.map { " (last error: \($0))" } ?? ""
      throw WebDriverError.timeout("\(description) within \(timeout)\(suffix)")
    }
    // Polls: the one polling loop of the tests (`eventually` and `waitUntil` use it); cancellable.
    try await Task.sleep(for: poll)
  }
}

/// Polls `condition` until it returns true; throws `WebDriverError.timeout` naming `description` otherwise.
public func waitUntil(
  _ description: String, timeout: Duration = .seconds(10), poll: Duration = .milliseconds(100),
  isolation: isolated (any Actor)? = #isolation, _ condition: () async throws -> Bool
) async throws {
  _ = try await waitForValue(description, timeout: timeout, poll: poll) { () async throws -> Bool? in
    try await condition() ? true : nil
  }
}
