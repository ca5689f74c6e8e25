import Foundation
import Synchronization

/// Throwaway certificates for TLS tests, made once per test process with `openssl` (EC P-256 keys,
/// which take milliseconds): a CA, a server certificate for `127.0.0.1` and `localhost` signed by
/// it, the same server's certificate expired, one issued for another host, one from another CA, and a
/// client certificate for mutual TLS. `script/test` installs `openssl`.
///
/// ```swift
/// let certificates = try await TestCertificates.shared()
/// let server = try await RedisServerProcess(tls: .init(certificates: certificates))
/// ```
public struct TestCertificates: Sendable {
  /// The folder holding the files.
  public let directory: String

  /// The CA every certificate here is signed by (except `otherCA`'s).
  public var ca: String { directory + "/ca.pem" }
  /// A CA the servers' certificates do not chain to.
  public var otherCA: String { directory + "/other-ca.pem" }
  /// A server certificate and key for which `kind` says.
  public func server(_ kind: ServerCertificate = .valid) -> (certificate: String, key: String) {
    (directory + "/\(kind.rawValue).pem", directory + "/\(kind.rawValue).key")
  }
  /// A client certificate and key signed by `ca`.
  public var client: (certificate: String, key: String) {
    (directory + "/client.pem", directory + "/client.key")
  }

  /// Which server certificate.
  public enum ServerCertificate: String, Sendable, CaseIterable {
    /// For 127.0.0.1 and localhost, valid now.
    case valid = "server"
    /// For 127.0.0.1 and localhost, expired.
    case expired
    /// For `elsewhere.example` and 10.9.9.9 only.
    case wrongHost = "wrong-host"
  }

  /// The certificates of this test process, made at the first call; later calls wait for the same.
  public static func shared() async throws -> TestCertificates {
    let task = making.withLock { task in
      if let task { return task }
      let made = Task { try await make() }
      task = made
      return made
    }
    return try await task.value
  }

  /// The one making of this process. (Once a lazy static made them with Foundation's `Process` inside
  /// its initialiser: the shell's exit went unnoticed, and the tests on both of the pool's threads
  /// waited for ever, one in `waitUntilExit`, the other on the initialiser's lock.)
  private static let making = Mutex<Task<TestCertificates, any Error>?>(nil)

  private static func make() async throws -> TestCertificates {
    let directory = try ScratchFolder.make("test-certificates")
    let script = """
      set -e
      cd "$1"
      key() { echo "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"; }
      openssl req -x509 $(key) -days 3 -subj "/CN=RepoScroll test CA" -keyout ca.key -out ca.pem
      openssl req -x509 $(key) -days 3 -subj "/CN=Another CA" -keyout other-ca.key -out other-ca.pem
      sign() {  # name, subject, days, subjectAltName or empty, extended key usage
        openssl req $(key) -subj "$2" -keyout "$1.key" -out "$1.csr"
        printf 'extendedKeyUsage=%s\\n' "$5" > "$1.ext"
        [ -n "$4" ] && printf 'subjectAltName=%s\\n' "$4" >> "$1.ext"
        openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days "$3" \\
          -extfile "$1.ext" -out "$1.pem"
      }
      sign server "/CN=localhost" 3 "IP:127.0.0.1,DNS:localhost" serverAuth
      sign expired "/CN=localhost" -1 "IP:127.0.0.1,DNS:localhost" serverAuth
      sign wrong-host "/CN=elsewhere.example" 3 "DNS:elsewhere.example,IP:10.9.9.9" serverAuth
      sign client "/CN=reposcroll-client" 3 "" clientAuth
      chmod 644 *.key
      """
    // Reaped by its pid (posix_spawn and waitpid), polled without holding a thread.
    let shell = try ProcessRunner(
      executable: "/bin/sh", arguments: ["-c", script, "sh", directory], lineBuffered: false, name: "openssl")
    let status = try await shell.waitForExit(timeout: .seconds(60))
    guard status == .exited(0) else {
      throw WebDriverError.process(
        "openssl could not make the test certificates in \(directory) (\(status)): \(shell.errorOutput)")
    }
    return TestCertificates(directory: directory)
  }
}
