import HTTP
import HTTPServer
import TestSupport
import Testing

@testable import CurlClient

/// Behaviour against the project's own HTTPServer on loopback, without timing.
@Suite(.timeLimit(.minutes(3))) struct CurlHTTPClientLoopbackTests {
  /// Routes shared by these tests.
  static func routes(_ router: inout Router, peers: PeerSet? = nil) {
    router.get("/echo/{n}") { _, context in
      peers?.insert(context.remoteAddress)
      let n = Int(context.parameters["n"] ?? "") ?? 0
      return HTTPResponse(body: .bytes(letters(100 + n, seed: n)))
    }
    router.get("/headers") { request, _ in
      let headers = HTTPHeaders([
        ("Set-Cookie", "a=1"), ("X-Dup", "one"), ("Set-Cookie", "b=2"), ("X-Dup", "two"),
        ("X-Seen-UA", request.headers["User-Agent"] ?? "none"),
        ("X-Seen-Custom", request.headers.values(for: "X-Custom").joined(separator: "|")),
      ])
      return HTTPResponse(headers: headers, body: .bytes(Array("ok".utf8)))
    }
    router.get("/redirect") { _, _ in
      HTTPResponse(status: .found, headers: ["Location": "/echo/1"], body: .bytes(Array("moved".utf8)))
    }
    router.post("/post") { request, _ in
      HTTPResponse(body: .bytes(Array("posted \(request.method) \(request.body.count)".utf8)))
    }
    router.get("/big") { _, _ in HTTPResponse(body: .bytes(letters(65536))) }
    router.get("/bigstream") { _, _ in
      let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
      for i in 0..<16 { continuation.yield(Array(letters(65536)[(i * 4096)..<((i + 1) * 4096)])) }
      continuation.finish()
      return HTTPResponse(body: .stream(stream))
    }
  }

  @Test func manyConcurrentRequestsGetTheirOwnBodies() async throws {
    let peers = PeerSet()
    let server = try LoopbackServer { CurlHTTPClientLoopbackTests.routes(&$0, peers: peers) }
    let client = CurlHTTPClient(configuration: .init(maxConcurrentRequests: 8))
    let total = 150
    let matched = try await withThrowingTaskGroup(of: Bool.self) { group in
      for n in 0..<total {
        group.addTask {
          let response = try await client.execute(ClientRequest(url: server.url("/echo/\(n)")))
          return response.status.code == 200 && response.body == letters(100 + n, seed: n)
        }
      }
      return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    expectEqual(matched, total)
    expectEqual(client.debugActiveTransfers, 0)
    expectTrue(client.debugLiveEasyHandles <= 8)
    // The cap and the connection cache keep the client to a handful of connections.
    expectTrue(peers.count <= 8)
    client.shutdown()
    expectEqual(client.debugLiveEasyHandles, 0)
    await server.server.shutdown()
  }

  @Test func duplicateHeadersArePreservedInOrderAndUserAgentIsSent() async throws {
    let server = try LoopbackServer { CurlHTTPClientLoopbackTests.routes(&$0) }
    let client = CurlHTTPClient()
    defer { client.shutdown() }
    let request = ClientRequest(
      url: server.url("/headers"), headers: HTTPHeaders([("X-Custom", "1"), ("X-Custom", "2")]))
    let response = try await client.execute(request)
    expectEqual(response.status.code, 200)
    expectEqual(response.headers.values(for: "set-cookie"), ["a=1", "b=2"])
    expectEqual(response.headers.values(for: "X-Dup"), ["one", "two"])
    expectEqual(response.headers["X-Seen-UA"], "RepoScroll/1.0")
    expectEqual(response.headers["X-Seen-Custom"], "1|2")
    expectEqual(response.body, Array("ok".utf8))
    await server.server.shutdown()
  }

  @Test func requestUserAgentOverridesTheDefault() async throws {
    let server = try LoopbackServer { CurlHTTPClientLoopbackTests.routes(&$0) }
    let client = CurlHTTPClient(configuration: .init(userAgent: "Configured/2"))
    defer { client.shutdown() }
    let plain = try await client.execute(ClientRequest(url: server.url("/headers")))
    expectEqual(plain.headers["X-Seen-UA"], "Configured/2")
    let custom = try await client.execute(
      ClientRequest(url: server.url("/headers"), headers: ["User-Agent": "Custom/3"]))
    expectEqual(custom.headers["X-Seen-UA"], "Custom/3")
    await server.server.shutdown()
  }

  @Test func redirectsAreReturnedAsIsByDefault() async throws {
    let server = try LoopbackServer { CurlHTTPClientLoopbackTests.routes(&$0) }
    let client = CurlHTTPClient()
    defer { client.shutdown() }
    let response = try await client.execute(ClientRequest(url: server.url("/redirect")))
    expectEqual(response.status.code, 302)
    expectEqual(response.headers["Location"], "/echo/1")
    expectEqual(response.body, Array("moved".utf8))
    await server.server.shutdown()
  }

  @Test func redirectsAreFollowedWhenConfigured() async throws {
    let server = try LoopbackServer { CurlHTTPClientLoopbackTests.routes(&$0) }
    let client = CurlHTTPClient(configuration: .init(followRedirects: true))
    defer { client.shutdown() }
    let response = try await client.execute(ClientRequest(url: server.url("/redirect")))
    expectEqual(response.status.code, 200)
    expectEqual(response.body, letters(101, seed: 1))
    // Only the final response's headers are kept.
    expectEqual(response.headers["Location"], nil)
    await server.server.shutdown()
  }

  @Test func headAndPostUseTheirMethods() async throws {
    let server = try LoopbackServer { CurlHTTPClientLoopbackTests.routes(&$0) }
    let client = CurlHTTPClient()
    defer { client.shutdown() }
    let head = try await client.execute(ClientRequest(url: server.url("/echo/4"), method: .head))
    expectEqual(head.status.code, 200)
    expectTrue(head.body.isEmpty)
    let post = try await client.execute(ClientRequest(url: server.url("/post"), method: .post))
    expectEqual(post.body, Array("posted POST 0".utf8))
    let missing = try await client.execute(ClientRequest(url: server.url("/nothing-here")))
    expectEqual(missing.status.code, 404)
    await server.server.shutdown()
  }

  @Test(arguments: ["/big", "/bigstream"])
  func oversizedBodiesAreRejected(path: String) async throws {
    let server = try LoopbackServer { CurlHTTPClientLoopbackTests.routes(&$0) }
    let client = CurlHTTPClient(configuration: .init(maxResponseBytes: 10_000))
    defer { client.shutdown() }
    await #expect(throws: ClientError.tooLarge(limit: 10_000)) {
      _ = try await client.execute(ClientRequest(url: server.url(path)))
    }
    await #expect(throws: ClientError.tooLarge(limit: 65535)) {
      _ = try await client.execute(ClientRequest(url: server.url(path), maxResponseBytes: 65535))
    }
    // A body exactly at the per-request limit is accepted.
    let exact = try await client.execute(ClientRequest(url: server.url(path), maxResponseBytes: 65536))
    expectEqual(exact.body, letters(65536))
    expectEqual(client.debugActiveTransfers, 0)
    await server.server.shutdown()
  }

  @Test func httpsToAPlainHTTPServerIsATLSError() async throws {
    let (fd, port) = loopbackListener()
    let listener = Task { await answerOnce(fd: fd, reply: "HTTP/1.1 400 Bad Request\r\n\r\n") }
    let client = CurlHTTPClient()
    defer { client.shutdown() }
    let error = await #expect(throws: ClientError.self) {
      _ = try await client.execute(ClientRequest(url: "https://127.0.0.1:\(port)/"))
    }
    await listener.value
    var isTLS = false
    if case .tls = error { isTLS = true }
    expectTrue(isTLS, "expected tls, got \(String(describing: error))")
  }

  /// "RepoScroll gzip body " 20 times, gzip-compressed (46 bytes).
  static let gzipBody: [UInt8] = [
    0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x0b, 0x4a, 0x2d, 0xc8, 0x0f, 0x4e, 0x2e,
    0xca,
    0xcf, 0xc9, 0x51, 0x48, 0xaf, 0xca, 0x2c, 0x50, 0x48, 0xca, 0x4f, 0xa9, 0x54, 0x08, 0x1a, 0x15, 0x1c,
    0x4c,
    0x82, 0x00, 0x45, 0xe5, 0xff, 0xfe, 0xa4, 0x01, 0x00, 0x00,
  ]

  @Test func compressedBodiesAreDecodedByLibcurl() async throws {
    let server = try LoopbackServer {
      $0.get("/gzip") { request, _ in
        guard request.headers.containsToken("gzip", in: "Accept-Encoding") else {
          return .text(.badRequest, "no gzip offered")
        }
        return HTTPResponse(
          headers: ["Content-Encoding": "gzip"], body: .bytes(CurlHTTPClientLoopbackTests.gzipBody))
      }
    }
    let client = CurlHTTPClient()
    defer { client.shutdown() }
    let response = try await client.execute(ClientRequest(url: server.url("/gzip")))
    expectEqual(response.status.code, 200)
    expectEqual(response.body, Array(String(repeating: "RepoScroll gzip body ", count: 20).utf8))
    await server.server.shutdown()
  }
}
