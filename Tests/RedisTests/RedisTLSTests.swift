import Clocks
import Redis
import TLS
import TestSupport
import Testing

/// TLS against a real TLS-only `redis-server`: every way the server's identity can be wrong is a
/// clear `.tls` error and nothing is ever sent in plain text; mutual TLS; the handshake figures.
@Suite(.timeLimit(.minutes(3))) struct RedisTLSTests {
  static func certificates() async throws -> TestCertificates { try await TestCertificates.shared() }

  /// A TLS server presenting `certificate`.
  static func server(
    _ certificate: TestCertificates.ServerCertificate = .valid, clientCertificates: Bool = false
  ) async throws -> RedisServerProcess {
    try await RedisServerProcess(
      tls: RedisTLSOptions(
        certificates: await certificates(), serverCertificate: certificate,
        requireClientCertificate: clientCertificates))
  }

  /// The `.tls` error a connection to `configuration` fails with (nil: it did not fail that way).
  static func tlsError(_ configuration: RedisConfiguration) async -> TLSError? {
    do {
      _ = try await RedisConnection.connect(configuration, time: .system)
      return nil
    } catch {
      guard case .tls(let failure) = error else { return nil }
      return failure
    }
  }

  @Test func aCertificateFromAnotherCAIsRefused() async throws {
    let server = try await Self.server()
    var configuration = try RedisConfiguration.relaxed(server)
    configuration.tls?.caFile = try await Self.certificates().otherCA
    let failure = await Self.tlsError(configuration)
    expectEqual(failure?.kind, .verification)
    // Redis sends its CA along with its certificate, so OpenSSL sees a chain ending in a stranger.
    let message = failure?.message ?? "no error"
    expectTrue(message.contains("self-signed") || message.contains("local issuer"), "\(message)")
    // The system store does not know the test CA either.
    configuration.tls?.caFile = nil
    await expectEqual(Self.tlsError(configuration)?.kind, .verification)
  }

  @Test func anExpiredCertificateIsRefused() async throws {
    let server = try await Self.server(.expired)
    let failure = await Self.tlsError(try RedisConfiguration.relaxed(server))
    expectEqual(failure?.kind, .verification)
    expectEqual(failure?.message, "certificate has expired")
    expectTrue(RedisError.tls(try #require(failure)).description.contains("server certificate refused"))
  }

  @Test func aCertificateForAnotherHostIsRefusedByAddressAndByName() async throws {
    let server = try await Self.server(.wrongHost)
    var configuration = try RedisConfiguration.relaxed(server)
    let byAddress = await Self.tlsError(configuration)
    expectEqual(byAddress?.kind, .verification)
    expectEqual(byAddress?.message, "IP address mismatch")
    configuration.host = "localhost"
    let byName = await Self.tlsError(configuration)
    expectEqual(byName?.message, "hostname mismatch")
    // The valid certificate names both, so both pass.
    let good = try await Self.server()
    var named = try RedisConfiguration.relaxed(good)
    named.host = "localhost"
    try await RedisConnection.connect(named, time: .system).ping()
  }

  @Test func aPlainTextServerOnARedissURLFailsAndNothingIsSentInClear() async throws {
    let plain = try await RedisServerProcess()
    var configuration = try RedisConfiguration(url: "rediss://127.0.0.1:\(plain.port)/0").relaxed()
    configuration.tls?.caFile = try await Self.certificates().ca
    configuration.connectTimeout = .milliseconds(800)
    let client = try RedisClient(configuration, time: .system)
    defer { client.shutdown() }
    do {
      try await client.set("leaked", [1])
      Issue.record("a rediss:// URL talked to a plain-text server")
    } catch {
      // Redis either answers the ClientHello as a garbled command (a TLS protocol failure) or waits
      // for the rest of its line (the handshake times out): both say what is wrong.
      switch error {
      case .tls(let failure): expectEqual(failure.kind, .protocolFailure)
      case .timeout(.handshake): expectTrue(error.description.contains("TLS"))
      default: Issue.record("unexpected \(error)")
      }
    }
    let check = try RedisClient(try RedisConfiguration.relaxed(plain), time: .system)
    defer { check.shutdown() }
    try await expectEqual(check.get("leaked"), nil, "the command reached the server in plain text")
  }

  @Test func aServerThatAcceptsButNeverAnswersTheHandshakeTimesOutAsTLS() async throws {
    let silent = try FakeRedisServer(reply: [])
    defer { silent.stop() }
    var configuration = try RedisConfiguration(url: "rediss://127.0.0.1:\(silent.port)/0")
    configuration.tls?.caFile = try await Self.certificates().ca
    configuration.connectTimeout = .milliseconds(200)
    await #expect(throws: RedisError.timeout(.handshake)) {
      try await RedisConnection.connect(configuration, time: .system)
    }
    expectTrue(RedisError.timeout(.handshake).description.contains("does the server speak TLS"))
  }

  @Test func aTLSServerOnAPlainURLIsALostConnectionNotAHang() async throws {
    let server = try await Self.server()
    var configuration = try RedisConfiguration.relaxed(server)
    configuration.tls = nil
    await #expect {
      try await RedisConnection.connect(configuration, time: .system)
    } throws: { RedisError.lostReason(of: $0) != nil }
  }

  @Test func mutualTLSNeedsTheClientCertificate() async throws {
    let server = try await Self.server(clientCertificates: true)
    var configuration = try RedisConfiguration.relaxed(server)
    // Without one, the server refuses (in TLS 1.3, with an alert after the client's handshake ended).
    await #expect(throws: RedisError.self) {
      try await RedisConnection.connect(configuration, time: .system).ping()
    }
    let client = try await Self.certificates().client
    configuration.tls?.certificateFile = client.certificate
    configuration.tls?.keyFile = client.key
    let connection = try await RedisConnection.connect(configuration, time: .system)
    try await expectEqual(connection.execute(["ECHO", "mutual"]), .bulkString(Array("mutual".utf8)))
  }

  @Test func unusableFilesAreConfigurationErrorsAtStartup() async throws {
    var configuration = try RedisConfiguration(url: "rediss://127.0.0.1:1/0")
    configuration.tls?.caFile = "/nonexistent/ca.pem"
    #expect {
      _ = try RedisClient(configuration, time: .system)
    } throws: { error in
      guard case RedisError.tls(let failure) = error else { return false }
      return failure.kind == .configuration && failure.message.contains("/nonexistent/ca.pem")
    }
    let certificates = try await Self.certificates()
    configuration.tls = TLSClientConfiguration(
      caFile: certificates.ca, certificateFile: certificates.client.certificate,
      keyFile: certificates.server().key)
    #expect {
      _ = try RedisClient(configuration, time: .system)
    } throws: { error in
      guard case RedisError.tls(let failure) = error else { return false }
      return failure.kind == .configuration && failure.message.contains("mismatch")
    }
    configuration.tls = TLSClientConfiguration(certificateFile: certificates.client.certificate)
    #expect(throws: RedisError.tls(TLSError(.configuration, "a client certificate needs its key file"))) {
      _ = try RedisClient(configuration, time: .system)
    }
  }

  @Test func theClientCountsHandshakesAndFailuresAndKnowsTheRole() async throws {
    let server = try await Self.server()
    let client = try RedisClient(try RedisConfiguration.relaxed(server).pool(4), time: .system)
    defer { client.shutdown() }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<8 {
        group.addTask { try await client.execute(["SET", RedisArgument("k\(index)"), "DEBUG"]) }
      }
      try await group.waitForAll()
    }
    let seen = client.telemetry.snapshot
    expectEqual(seen.handshakeCount, client.statistics.open)
    expectTrue(seen.handshakeCount >= 1 && seen.handshakeSeconds > 0)
    expectTrue(seen.handshakeBuckets.reduce(0, +) <= seen.handshakeCount)
    expectEqual(seen.role, .master)
    expectEqual(seen.server, "127.0.0.1:\(server.port)")
    expectEqual(seen.tlsFailures, 0)
    var refused = try RedisConfiguration.relaxed(server)
    refused.tls?.caFile = try await Self.certificates().otherCA
    let untrusting = try RedisClient(refused, time: .system)
    defer { untrusting.shutdown() }
    await #expect(throws: RedisError.self) { try await untrusting.ping() }
    expectEqual(untrusting.telemetry.snapshot.tlsFailures, 1)
    expectEqual(untrusting.telemetry.snapshot.handshakeCount, 0)
  }
}
