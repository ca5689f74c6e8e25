import HTTP
import HTTPServer
import TestSupport
import Testing

@testable import CurlClient

/// Cancellation, timeouts, slow bodies and handle accounting; serialized so timing margins hold
/// on a loaded machine.
@Suite(.serialized, .timeLimit(.minutes(3))) struct CurlHTTPClientTimingTests {
  /// A body that never ends: a chunk every 20 ms until the server stops taking them.
  static func endless(started: Counter, ended: Counter) -> HTTPHandler {
    { _, _ in
      started.increment()
      let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
      let producer = Task {
        while !Task.isCancelled {
          if case .terminated = continuation.yield(letters(1024)) { break }
          try? await Task.sleep(for: .milliseconds(20))  // Real time: a slow body, one chunk per 20 ms.
        }
      }
      continuation.onTermination = { _ in
        producer.cancel()
        ended.increment()
      }
      return HTTPResponse(body: .stream(stream))
    }
  }

  /// A server whose `/forever` is `endless`, counting the streams started and ended, and whose
  /// `/small` answers "small" at once.
  static func endlessServer() throws -> (server: LoopbackServer, started: Counter, ended: Counter) {
    let started = Counter()
    let ended = Counter()
    let server = try LoopbackServer {
      $0.get("/forever", endless(started: started, ended: ended))
      $0.get("/small") { _, _ in HTTPResponse(body: .bytes(Array("small".utf8))) }
    }
    return (server, started, ended)
  }

  @Test func cancellationMidTransferIsPromptAndDisconnects() async throws {
    let (server, started, ended) = try Self.endlessServer()
    let client = CurlHTTPClient(configuration: .init(totalTimeout: .seconds(120)))
    defer { client.shutdown() }
    let task = Task { try await client.execute(ClientRequest(url: server.url("/forever"))) }
    expectTrue(await eventually { started.count == 1 })
    expectTrue(await eventually { client.debugActiveTransfers == 1 })
    let cancelledAt = ContinuousClock.now
    task.cancel()
    await #expect(throws: ClientError.cancelled) { _ = try await task.value }
    // Generous bound: without cancellation the request would run for 120 s.
    expectTrue(ContinuousClock.now - cancelledAt < .seconds(10))
    expectEqual(client.debugActiveTransfers, 0)
    // The server notices the closed connection and stops the stream.
    expectTrue(await eventually { ended.count == 1 })
    await server.server.shutdown()
  }

  @Test func cancellingAQueuedRequestLeavesTheActiveOneRunning() async throws {
    let (server, started, _) = try Self.endlessServer()
    let client = CurlHTTPClient(configuration: .init(totalTimeout: .seconds(120), maxConcurrentRequests: 1))
    defer { client.shutdown() }
    let first = Task { try await client.execute(ClientRequest(url: server.url("/forever"))) }
    expectTrue(await eventually { started.count == 1 })
    let queued = Task { try await client.execute(ClientRequest(url: server.url("/small"))) }
    // Real time: lets the request reach the client's queue, which exposes nothing to wait on.
    try await Task.sleep(for: .milliseconds(100))
    queued.cancel()
    await #expect(throws: ClientError.cancelled) { _ = try await queued.value }
    expectEqual(client.debugActiveTransfers, 1)
    first.cancel()
    await #expect(throws: ClientError.cancelled) { _ = try await first.value }
    // The slot is free again.
    let after = try await client.execute(ClientRequest(url: server.url("/small")))
    expectEqual(after.body, Array("small".utf8))
    await server.server.shutdown()
  }

  @Test func shutdownFailsRequestsInFlight() async throws {
    let (server, started, _) = try Self.endlessServer()
    let client = CurlHTTPClient(configuration: .init(totalTimeout: .seconds(120)))
    let task = Task { try await client.execute(ClientRequest(url: server.url("/forever"))) }
    expectTrue(await eventually { started.count == 1 })
    client.shutdown()
    await #expect(throws: ClientError.cancelled) { _ = try await task.value }
    expectEqual(client.debugLiveEasyHandles, 0)
    await server.server.shutdown()
  }

  @Test func totalTimeoutIsTimedOut() async throws {
    let server = try LoopbackServer {
      $0.get("/sleep") { _, _ in try await untilCancelled() }
    }
    let client = CurlHTTPClient(configuration: .init(totalTimeout: .milliseconds(300)))
    defer { client.shutdown() }
    let begun = ContinuousClock.now
    await #expect(throws: ClientError.timedOut) {
      _ = try await client.execute(ClientRequest(url: server.url("/sleep")))
    }
    expectTrue(ContinuousClock.now - begun < .seconds(10))
    // A per-request timeout overrides the configured one.
    await #expect(throws: ClientError.timedOut) {
      _ = try await client.execute(ClientRequest(url: server.url("/sleep"), timeout: .milliseconds(200)))
    }
    await server.server.shutdown()
  }

  @Test func slowChunkedBodiesArriveWhole() async throws {
    let chunks = (0..<20).map { letters(500 + $0, seed: $0) }
    let server = try LoopbackServer {
      $0.get("/slow") { _, _ in
        let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        Task {
          for chunk in chunks {
            try? await Task.sleep(for: .milliseconds(25))  // Real time: chunks that arrive slowly.
            continuation.yield(chunk)
          }
          continuation.finish()
        }
        return HTTPResponse(body: .stream(stream))
      }
    }
    let client = CurlHTTPClient()
    defer { client.shutdown() }
    let response = try await client.execute(ClientRequest(url: server.url("/slow")))
    expectEqual(response.status.code, 200)
    expectEqual(response.body, chunks.flatMap { $0 })
    expectEqual(response.headers["Transfer-Encoding"], "chunked")
    await server.server.shutdown()
  }

  @Test func tenThousandRequestsLeakNoHandlesOrDescriptors() async throws {
    let server = try LoopbackServer {
      $0.get("/n/{n}") { _, context in
        HTTPResponse(body: .bytes(Array((context.parameters["n"] ?? "").utf8)))
      }
    }
    let descriptorsBefore = openFileDescriptorCount()
    let client = CurlHTTPClient()
    var peakDescriptors = 0
    var peakConnections = 0
    var overPool: [String] = []
    var wrong = 0
    for batch in 0..<100 {
      wrong += try await withThrowingTaskGroup(of: Int.self) { group in
        for i in 0..<100 {
          let n = batch * 100 + i
          group.addTask {
            let response = try await client.execute(ClientRequest(url: server.url("/n/\(n)")))
            return response.body == Array(String(n).utf8) ? 0 : 1
          }
        }
        return try await group.reduce(0, +)
      }
      peakDescriptors = max(peakDescriptors, openFileDescriptorCount())
      // Between batches the pool is idle, so its connections hold still: a count over the pool is
      // read again and both readings, with the sockets' local ports, go in the failure (one full
      // run saw 64).
      let open = establishedConnections(toPort: server.port)
      if open.count > 32, overPool.count < 5 {
        let again = establishedConnections(toPort: server.port)
        let ports = Set(open.values).sorted()
        overPool.append(
          "batch \(batch): \(open.count) sockets on \(ports.count) local ports "
            + "\(ports.first ?? 0)…\(ports.last ?? 0), then \(again.count)")
      }
      peakConnections = max(peakConnections, open.count)
    }
    expectEqual(wrong, 0)
    expectEqual(client.debugActiveTransfers, 0)
    expectTrue(client.debugLiveEasyHandles <= 32)
    // At most one pooled connection per concurrent transfer, reused across the 100 batches.
    expectTrue(
      peakConnections >= 1 && peakConnections <= 32,
      "\(peakConnections) connections open at once; \(overPool.joined(separator: "; "))")
    // Leaking one descriptor per request would add thousands; the margin allows for client and
    // server sockets of the pool and for tests running in parallel in this process.
    expectTrue(peakDescriptors - descriptorsBefore <= 160)
    client.shutdown()
    expectEqual(client.debugLiveEasyHandles, 0)
    expectTrue(await eventually { establishedConnections(toPort: server.port).isEmpty })
    await server.server.shutdown()
  }

  @Test func droppedClientsStopTheirThreads() async throws {
    let server = try LoopbackServer {
      $0.get("/small") { _, _ in HTTPResponse(body: .bytes(Array("small".utf8))) }
    }
    let threadsBefore = threadCount()
    for _ in 0..<20 {
      // No shutdown(): deinit must stop the loop thread and free the handles.
      let client = CurlHTTPClient()
      let response = try await client.execute(ClientRequest(url: server.url("/small")))
      expectEqual(response.body, Array("small".utf8))
    }
    // Twenty leaked loop threads would show; the margin allows for tests running in parallel.
    expectTrue(await eventually { threadCount() - threadsBefore < 10 })
    await server.server.shutdown()
  }
}
