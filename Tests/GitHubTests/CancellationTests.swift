import CurlClient
import HTTP
import Synchronization
import TestSupport
import Testing

@testable import GitHub

/// A transport whose calls wait until they are cancelled, recording what it saw.
final class HangingTransport: HTTPClientTransport {
  private let state = Mutex((started: 0, cancelled: 0))

  func execute(_ request: ClientRequest) async throws(ClientError) -> ClientResponse {
    state.withLock { $0.started += 1 }
    do {
      try await untilCancelled()
    } catch {
      state.withLock { $0.cancelled += 1 }
      throw ClientError.cancelled
    }
  }

  var started: Int { state.withLock { $0.started } }
  var cancelled: Int { state.withLock { $0.cancelled } }
}

@Suite("Cancellation of coalesced loads", .timeLimit(.minutes(3)))
struct CancellationTests {
  static func client(_ transport: any HTTPClientTransport) -> GitHubClient {
    var configuration = GitHubConfiguration()
    configuration.apiBase = "http://127.0.0.1:9"
    configuration.avatarBase = "http://127.0.0.1:10"
    return GitHubClient(
      configuration: configuration, transport: transport, time: ManualClock(epochSeconds: 1_700_000_000).time)
  }

  static func search(_ client: GitHubClient) async -> Result<[Int], GitHubError> {
    do {
      return .success(try await client.searchRepositories(SearchQuery(text: "hot"), page: 1).items.map(\.id))
    } catch {
      return .failure(error)
    }
  }

  @Test func aCancelledWaiterReturnsAtOnceWhileAnotherKeepsTheCallAlive() async throws {
    let transport = HangingTransport()
    let client = Self.client(transport)
    let first = Task { await Self.search(client) }
    expectTrue(try await eventually { transport.started == 1 })
    let second = Task { await Self.search(client) }
    expectTrue(try await eventually { await client.metrics().coalesced == 1 })

    first.cancel()
    await expectEqual(first.value, .failure(.cancelled))
    expectEqual(transport.cancelled, 0, "the second waiter still needs the call")
    await expectEqual(client.metrics().cancelledUpstream, 0)

    second.cancel()
    await expectEqual(second.value, .failure(.cancelled))
    expectTrue(try await eventually { transport.cancelled == 1 })
    let metrics = await client.metrics()
    expectEqual(metrics.cancelledUpstream, 1)
    expectEqual(metrics.totalUpstreamCalls, 0, "a cancelled call has no answer to count")
  }

  @Test func theNextCallerAfterAnAbandonedFlightStartsAFreshCall() async throws {
    let gate = Gate()
    let calls = Mutex(0)
    let transport = FakeTransport { _ in
      let n = calls.withLock {
        $0 += 1; return $0
      }
      if n == 1 { try await untilCancelled() }
      await gate.wait()
      return Fixtures.search(ids: [4, 5])
    }
    let client = Self.client(transport)
    let abandoned = Task { await Self.search(client) }
    expectTrue(try await eventually { transport.callCount == 1 })
    abandoned.cancel()
    await expectEqual(abandoned.value, .failure(.cancelled))

    let next = Task { await Self.search(client) }
    expectTrue(try await eventually { transport.callCount == 2 })
    await gate.open()
    await expectEqual(next.value, .success([4, 5]))
    // The abandoned call's late end must not disturb the cache the fresh call filled.
    await expectEqual(Self.search(client), .success([4, 5]))
    expectEqual(transport.callCount, 2)
  }

  @Test func anAlreadyCancelledCallerStartsNoUpstreamCall() async throws {
    let transport = HangingTransport()
    let client = Self.client(transport)
    let result = await Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return await Self.search(client)
    }.value
    expectEqual(result, .failure(.cancelled))
    expectEqual(transport.started, 0)
    await expectEqual(client.metrics().cacheMisses, 0)
  }

  @Test func aCancelledCallGivesBackItsRateLimitReservation() async throws {
    let limits: [(String, String)] = [
      ("x-ratelimit-limit", "30"), ("x-ratelimit-remaining", "1"), ("x-ratelimit-reset", "1700000060"),
      ("x-ratelimit-resource", "search"),
    ]
    let transport = FakeTransport { request in
      if request.url.contains("page=2") { try await untilCancelled() }
      return Fixtures.search(ids: [1], headers: limits)
    }
    let client = Self.client(transport)
    _ = try await client.searchRepositories(SearchQuery(text: "hot"), page: 1)
    let abandoned = Task { try await client.searchRepositories(SearchQuery(text: "hot"), page: 2) }
    expectTrue(try await eventually { transport.callCount == 2 })
    abandoned.cancel()
    await #expect(throws: GitHubError.cancelled) { try await abandoned.value }
    // The one remaining search was given back, so page 3 still goes upstream.
    _ = try await client.searchRepositories(SearchQuery(text: "hot"), page: 3)
    expectEqual(transport.callCount, 3)
  }
}
