import TLS
import TestSupport
import Testing

/// The TLS engine without a socket: contexts from files, and the bytes a session produces and takes.
@Suite(.timeLimit(.minutes(1))) struct TLSEngineTests {
  static func certificates() async throws -> TestCertificates { try await TestCertificates.shared() }

  /// The ClientHello a new session for `serverName` sends first.
  static func clientHello(_ serverName: String) async throws -> [UInt8] {
    let ca = try await certificates().ca
    let session = try TLSClientSession(
      context: TLSClientContext(TLSClientConfiguration(caFile: ca)), serverName: serverName)
    try expectEqual(session.handshake(), .input, "the client waits for the server's answer")
    var hello: [UInt8] = []
    session.takeOutput(into: &hello)
    expectEqual(session.pendingOutput, 0)
    return hello
  }

  @Test func aSessionStartsWithAClientHelloThatNamesTheServerOnlyForADNSName() async throws {
    let named = try await Self.clientHello("redis.internal")
    // A TLS handshake record (type 22), then a ClientHello (type 1).
    expectTrue(named.count > 100 && named[0] == 22 && named[5] == 1)
    expectTrue(named.contains(subsequence: Array("redis.internal".utf8)), "SNI carries the name")
    let address = try await Self.clientHello("10.9.8.7")
    expectEqual(address[0], 22)
    expectTrue(!address.contains(subsequence: Array("10.9.8.7".utf8)), "no SNI for an IP address")
  }

  @Test func aPeerThatAnswersInPlainTextIsAProtocolFailure() async throws {
    let ca = try await Self.certificates().ca
    let session = try TLSClientSession(
      context: TLSClientContext(TLSClientConfiguration(caFile: ca)), serverName: "127.0.0.1")
    _ = try session.handshake()
    let reply = Array("-ERR unknown command '\u{16}\u{03}\u{01}'\r\n".utf8)
    reply.withUnsafeBytes { session.feed($0) }
    #expect {
      _ = try session.handshake()
    } throws: { error in
      guard let failure = error as? TLSError else { return false }
      return failure.kind == .protocolFailure && !failure.message.isEmpty
    }
  }

  @Test func filesThatCannotBeUsedAreConfigurationErrorsNamingTheFile() async throws {
    let certificates = try await Self.certificates()
    #expect {
      _ = try TLSClientContext(TLSClientConfiguration(caFile: "/nonexistent/ca.pem"))
    } throws: { ($0 as? TLSError)?.kind == .configuration && "\($0)".contains("/nonexistent/ca.pem") }
    // A certificate is not a key.
    #expect {
      _ = try TLSClientContext(
        TLSClientConfiguration(certificateFile: certificates.client.certificate, keyFile: certificates.ca))
    } throws: { ($0 as? TLSError)?.kind == .configuration && "\($0)".contains(certificates.ca) }
    // Another certificate's key.
    #expect {
      _ = try TLSClientContext(
        TLSClientConfiguration(
          certificateFile: certificates.client.certificate, keyFile: certificates.server().key))
    } throws: { ($0 as? TLSError)?.message.contains("mismatch") == true }
    #expect(throws: TLSError(.configuration, "a client key needs its certificate file")) {
      _ = try TLSClientContext(TLSClientConfiguration(keyFile: certificates.client.key))
    }
    // The system store and a matching identity load.
    _ = try TLSClientContext(TLSClientConfiguration())
    _ = try TLSClientContext(
      TLSClientConfiguration(
        caFile: certificates.ca, certificateFile: certificates.client.certificate,
        keyFile: certificates.client.key))
  }

  @Test func errorsSayWhatFailedWithoutKeyMaterial() {
    expectEqual(
      TLSError(.verification, "certificate has expired").description,
      "server certificate refused: certificate has expired")
    expectEqual(
      TLSError(.protocolFailure, "wrong version number").description, "TLS failed: wrong version number")
  }
}

extension Array where Element == UInt8 {
  /// True when `needle` occurs in order somewhere in the array.
  func contains(subsequence needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, needle.count <= count else { return false }
    return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
  }
}
