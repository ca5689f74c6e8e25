import Foundation

/// Runs blocking test code (such as `RawSocketClient` calls) on its own thread, so that it cannot
/// starve Swift's small cooperative thread pool, which servers under test may need.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    let thread = Thread {
      do {
        continuation.resume(returning: try body())
      } catch {
        continuation.resume(throwing: error)
      }
    }
    thread.stackSize = 1 << 20
    thread.start()
  }
}
