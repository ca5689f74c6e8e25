import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One Chromium session driven through chromedriver's W3C WebDriver HTTP API.
///
/// Each session owns its chromedriver child process. Always end it with `close()`, or better use
/// `withChromeSession`, which closes it even when the body throws.
public final class ChromeSession: Sendable {
  /// The Chromium binary (the /usr/bin/chromium wrapper script prints noise, so it is bypassed).
  public static let chromiumPath = "/usr/lib/chromium/chromium"
  /// The chromedriver binary from Debian's chromium-driver.
  public static let chromedriverPath = "/usr/bin/chromedriver"

  /// True when both Chromium and chromedriver are installed.
  public static var isAvailable: Bool {
    access(chromiumPath, X_OK) == 0 && access(chromedriverPath, X_OK) == 0
  }

  /// True when REPOSCROLL_SKIP_BROWSER=1 asks to skip browser tests (local quick runs only).
  public static var skipRequested: Bool {
    ProcessInfo.processInfo.environment["REPOSCROLL_SKIP_BROWSER"] == "1"
  }

  /// The WebDriver session id.
  public let id: String
  /// Chromium's browser process id, as chromedriver reports it.
  public let browserPID: Int32?
  /// Chromium's temporary profile folder, used to find its helper processes at close.
  public let userDataDirectory: String?
  /// The chromedriver child process.
  public let driver: ProcessRunner
  let http: WebDriverHTTP
  let options: ChromeSessionOptions
  private let closed = Mutex(false)

  private init(
    id: String, browserPID: Int32?, userDataDirectory: String?, driver: ProcessRunner, http: WebDriverHTTP,
    options: ChromeSessionOptions
  ) {
    self.id = id
    self.browserPID = browserPID
    self.userDataDirectory = userDataDirectory
    self.driver = driver
    self.http = http
    self.options = options
  }

  /// Starts chromedriver on a free loopback port, waits for it to be ready and opens a session.
  /// Throws `.unavailable` when the binaries are missing (tests then fail, they do not skip).
  public static func start(options: ChromeSessionOptions = .init()) async throws -> ChromeSession {
    guard isAvailable else {
      throw WebDriverError.unavailable(
        "\(chromiumPath) or \(chromedriverPath) is missing: apt-get install chromium chromium-driver "
          + "(script/test does), or set REPOSCROLL_SKIP_BROWSER=1 to skip browser tests locally")
    }
    var lastError: any Error = WebDriverError.process("chromedriver never started")
    // A freshly probed port can be taken by another process before chromedriver binds it: retry.
    for _ in 0..<3 {
      let port = try ProcessRunner.freeLoopbackPort()
      let driver = try ProcessRunner(
        executable: chromedriverPath, arguments: ["--port=\(port)", "--allowed-ips=127.0.0.1"],
        lineBuffered: false,
        name: "chromedriver")
      let http = WebDriverHTTP(port: port, defaultTimeout: options.commandTimeout)
      do {
        try await waitForReady(http, driver: driver, timeout: options.startupTimeout)
        let reply = try await http.send(
          "POST", "/session", body: options.capabilities, timeout: options.startupTimeout)
        guard let id = reply["sessionId"]?.string else {
          throw WebDriverError.unexpectedReply(command: "POST /session", reply: reply.description)
        }
        let capabilities = reply["capabilities"]
        return ChromeSession(
          id: id, browserPID: capabilities?["goog:processID"]?.int.map(Int32.init),
          userDataDirectory: capabilities?["chrome"]?["userDataDir"]?.string, driver: driver, http: http,
          options: options)
      } catch {
        lastError = error
        await driver.terminate(grace: .seconds(2))
        if driver.errorOutput.contains("bind") == false && driver.output.contains("bind") == false {
          break
        }
      }
    }
    throw lastError
  }

  private static func waitForReady(_ http: WebDriverHTTP, driver: ProcessRunner, timeout: Duration)
    async throws
  {
    let deadline = ContinuousClock.now + timeout
    var last = "no reply"
    while true {
      do {
        let status = try await http.send("GET", "/status", timeout: .seconds(2))
        if status["ready"]?.bool == true { return }
        last = status.description
      } catch {
        last = String(describing: error)
      }
      guard driver.isRunning else {
        throw WebDriverError.process("chromedriver exited before it was ready\n\(driver.transcript)")
      }
      guard ContinuousClock.now < deadline else {
        throw WebDriverError.timeout(
          "chromedriver not ready within \(timeout) (last: \(last))\n\(driver.transcript)")
      }
      try await Task.sleep(for: .milliseconds(50))
    }
  }

  /// Deletes the session, stops chromedriver and kills any Chromium process left behind. Idempotent.
  public func close() async {
    let alreadyClosed = closed.withLock { closed in
      defer { closed = true }
      return closed
    }
    if alreadyClosed { return }
    _ = try? await http.send("DELETE", "/session/\(id)", timeout: .seconds(10))
    await driver.terminate(grace: .seconds(3))
    killStrayBrowserProcesses()
  }

  /// Chromium lingers after the session is deleted and may have left chromedriver's process group:
  /// find its processes by this session's unique profile folder (or browser pid) and SIGKILL them.
  private func killStrayBrowserProcesses() {
    var victims: [Int32] = []
    if let browserPID, ChromeSession.isProcessAlive(browserPID) { victims.append(browserPID) }
    if let userDataDirectory {
      let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
      for entry in entries {
        guard let pid = Int32(entry),
          let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
        else { continue }
        if String(decoding: data, as: UTF8.self).contains(userDataDirectory) { victims.append(pid) }
      }
    }
    for pid in Set(victims) where pid > 1 && pid != getpid() { kill(pid, SIGKILL) }
    if let userDataDirectory,
      userDataDirectory.hasPrefix(NSTemporaryDirectory()) || userDataDirectory.hasPrefix("/tmp/")
    {
      try? FileManager.default.removeItem(atPath: userDataDirectory)
    }
  }

  /// True while `pid` names a live process (zombies count as gone).
  public static func isProcessAlive(_ pid: Int32) -> Bool {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return false }
    // The state letter follows the parenthesised command name, which may itself contain spaces.
    let text = String(decoding: data, as: UTF8.self)
    guard let close = text.lastIndex(of: ")") else { return false }
    let state = text[text.index(after: close)...].trimmingCharacters(in: .whitespaces).first
    return state != "Z" && state != "X"
  }
}

/// Runs `body` with a fresh Chromium session and always closes it afterwards, also when `body` throws.
public func withChromeSession<T>(
  options: ChromeSessionOptions = .init(), isolation: isolated (any Actor)? = #isolation,
  _ body: (ChromeSession) async throws -> T
) async throws -> T {
  let session = try await ChromeSession.start(options: options)
  do {
    let result = try await body(session)
    await session.close()
    return result
  } catch {
    await session.close()
    throw error
  }
}
