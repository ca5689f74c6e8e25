/// Waits until `condition` holds, polling it every `poll` for at most `limit`; returns whether it held.
/// For effects that happen in the background with no event to await. The default limit is generous:
/// a loaded 2-core machine can take seconds for what takes milliseconds alone, and a whole target's
/// tests at once there took over 30 s to get one request to a double (AppTests, at load 17). A
/// condition that holds ends the wait at once, so only a failing wait is longer. A task that is
/// cancelled (as by a suite's time limit) stops waiting at once. `waitUntil` (which throws instead)
/// polls the same way.
///
/// ```swift
/// #expect(await eventually { server.requestCount == 2 })
/// ```
public func eventually(
  within limit: Duration = .seconds(90), poll: Duration = .milliseconds(5),
  isolation: isolated (any Actor)? = #isolation, _ condition: () async throws -> Bool
) async -> Bool {
  do {
    _ = try await waitForValue("the condition", timeout: limit, poll: poll) { () async throws -> Bool? in
      try await condition() ? true : nil
    }
    return true
  } catch {
    return (try? await condition()) ?? false
  }
}

/// Suspends until the current task is cancelled, then throws `CancellationError`: the body of a
/// handler that must outlive its client, without a sleep of an arbitrary length.
public func untilCancelled() async throws -> Never {
  // An AsyncStream that never yields ends its iteration when the iterating task is cancelled.
  let (stream, continuation) = AsyncStream<Never>.makeStream()
  for await _ in stream {}
  withExtendedLifetime(continuation) {}
  throw CancellationError()
}
