import Foundation
import TestSupport

/// Sends exact request bytes on a thread of their own (the socket calls block), so percent-escapes,
/// dot segments and backslashes reach the server unchanged.
enum RawRequest {
  static func get(port: Int, target: String, headers: [(String, String)] = []) async throws -> RawResponse {
    try await withCheckedThrowingContinuation { continuation in
      let thread = Thread {
        continuation.resume(
          with: Result {
            let client = try RawSocketClient(port: port, timeout: .seconds(15))
            defer { client.close() }
            return try client.request("GET", target, headers: headers + [("Connection", "close")])
          })
      }
      thread.start()
    }
  }
}
