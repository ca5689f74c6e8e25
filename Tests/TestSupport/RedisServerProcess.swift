import Foundation
import Redis
import TLS

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How a test reaches its `redis-server`: the suites that run against a real server take this as
/// their argument, so each runs once in plain text and once over TLS.
public enum RedisTransport: String, Sendable, CaseIterable {
  /// Plain RESP on a TCP port.
  case plain
  /// TLS only (`--port 0 --tls-port P`), with the test CA's server certificate.
  case tls
}

/// The TLS side of a test `redis-server`: which certificate it presents and whether it asks clients
/// for theirs.
public struct RedisTLSOptions: Sendable {
  /// Where the certificates are.
  public var certificates: TestCertificates
  /// The certificate the server presents.
  public var serverCertificate: TestCertificates.ServerCertificate
  /// Require a client certificate signed by the test CA (`--tls-auth-clients yes`).
  public var requireClientCertificate: Bool

  /// The test CA's certificates; the valid server certificate; no client certificate asked for.
  public init(
    certificates: TestCertificates, serverCertificate: TestCertificates.ServerCertificate = .valid,
    requireClientCertificate: Bool = false
  ) {
    self.certificates = certificates
    self.serverCertificate = serverCertificate
    self.requireClientCertificate = requireClientCertificate
  }

  /// `redis-server` arguments for a TLS-only server on `port`.
  func arguments(port: Int) -> [String] {
    let (certificate, key) = certificates.server(serverCertificate)
    return [
      "--port", "0", "--tls-port", String(port), "--tls-cert-file", certificate, "--tls-key-file", key,
      "--tls-ca-cert-file", certificates.ca, "--tls-auth-clients", requireClientCertificate ? "yes" : "no",
      "--tls-replication", "yes",
    ]
  }
}

/// A throwaway `redis-server` on a free loopback port: no persistence, its own temporary folder, stopped
/// (or killed) by PID; plain or TLS. It installs nothing: `script/test` installs Debian's
/// `redis-server` (built with TLS) and `openssl` first.
public final class RedisServerProcess: Sendable {
  /// The port it listens on; kept across `restart()`.
  public let port: Int
  /// The password it requires, if any.
  public let password: String?
  /// Its TLS settings; nil for plain text.
  public let tls: RedisTLSOptions?
  private let directory: String
  private let process: ProcessRunnerBox

  /// Holds the current process so `restart` can replace it.
  private final class ProcessRunnerBox: @unchecked Sendable {
    // @unchecked Sendable: `runner` is replaced only by `restart`/`kill`, which tests call from one task.
    var runner: ProcessRunner?
  }

  /// Starts a server reached over `transport` (TLS with the test CA's valid certificate).
  public convenience init(
    _ transport: RedisTransport, password: String? = nil, extraArguments: [String] = []
  ) async throws {
    let tls = transport == .tls ? RedisTLSOptions(certificates: try await TestCertificates.shared()) : nil
    try await self.init(password: password, tls: tls, extraArguments: extraArguments)
  }

  /// Starts a server (with `--requirepass` when `password` is given, TLS only with `tls`) and waits
  /// until it accepts connections.
  public init(password: String? = nil, tls: RedisTLSOptions? = nil, extraArguments: [String] = [])
    async throws
  {
    // Asked before the retries below, which would otherwise take the skip for a failed start.
    try TestTier.startingProcess("redis-server")
    self.password = password
    self.tls = tls
    directory = NSTemporaryDirectory() + "redis-test-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    process = ProcessRunnerBox()
    var lastError: (any Error)?
    // A port that was free a moment ago may be taken by the time the server binds it; try a few.
    for _ in 0..<5 {
      let candidate = try ProcessRunner.freeLoopbackPort()
      do {
        process.runner = try await Self.launch(
          port: candidate, password: password, directory: directory,
          extra: (tls?.arguments(port: candidate) ?? []) + extraArguments)
        self.port = candidate
        self.extraArguments = extraArguments
        return
      } catch {
        lastError = error
      }
    }
    throw lastError ?? WebDriverError.process("redis-server did not start")
  }

  private let extraArguments: [String]

  deinit {
    if let runner = process.runner { Glibc.kill(-runner.pid, SIGKILL) }
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// `redis://[:password@]127.0.0.1:port/db`, or `rediss://…` with TLS.
  public func url(database: Int = 0) -> String {
    let auth = password.map { ":\($0)@" } ?? ""
    return "\(tls == nil ? "redis" : "rediss")://\(auth)127.0.0.1:\(port)/\(database)"
  }

  /// A client configuration for this server, with its password and, over TLS, the test CA trusted.
  public func configuration(database: Int = 0) throws -> RedisConfiguration {
    var configuration = try RedisConfiguration(
      url: "\(tls == nil ? "redis" : "rediss")://127.0.0.1:\(port)/\(database)")
    configuration.password = password
    configuration.tls?.caFile = tls?.certificates.ca
    return configuration
  }

  /// The server's process id while it runs.
  public var pid: pid_t? { process.runner?.pid }

  /// Kills the server at once (SIGKILL), as a crash would.
  public func kill() async {
    await process.runner?.terminate(signal: SIGKILL, grace: .seconds(2))
    process.runner = nil
  }

  /// Stops the server with SIGTERM.
  public func stop() async {
    await process.runner?.terminate()
    process.runner = nil
  }

  /// Starts the server again on the same port (after `kill` or `stop`).
  public func restart() async throws {
    if process.runner != nil { await stop() }
    var lastError: (any Error)?
    // The old socket may linger for a moment; retry the bind briefly.
    for _ in 0..<20 {
      do {
        process.runner = try await Self.launch(
          port: port, password: password, directory: directory,
          extra: (tls?.arguments(port: port) ?? []) + extraArguments)
        return
      } catch {
        lastError = error
        // Real time: the kernel frees the old process's port on its own.
        try await Task.sleep(for: .milliseconds(100))
      }
    }
    throw lastError ?? WebDriverError.process("redis-server did not restart")
  }

  private static func launch(port: Int, password: String?, directory: String, extra: [String]) async throws
    -> ProcessRunner
  {
    // A later `--port 0` (TLS only) overrides this one.
    var arguments = [
      "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory,
      // Tests slow the server down with DEBUG SLEEP; Redis 7 refuses DEBUG unless this is set.
      "--enable-debug-command", "yes",
    ]
    if let password { arguments += ["--requirepass", password] }
    let runner = try ProcessRunner(
      executable: "redis-server", arguments: arguments + extra, name: "redis-server")
    do {
      _ = try await runner.waitForLine(matching: "Ready to accept connections", timeout: .seconds(10))
      return runner
    } catch {
      await runner.terminate(signal: SIGKILL, grace: .seconds(1))
      throw error
    }
  }
}

extension RedisConfiguration {
  /// This configuration trusting only `caFile` over TLS (a plain one is returned as it is).
  public func trusting(_ caFile: String) -> RedisConfiguration {
    var configuration = self
    configuration.tls?.caFile = caFile
    return configuration
  }
}
