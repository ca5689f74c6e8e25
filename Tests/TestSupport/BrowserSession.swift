import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One browser session driven through its engine's W3C WebDriver HTTP server (see `BrowserEngine`).
///
/// Each session owns its driver child process (and, for WebKit, its Xvfb display). Always end it with
/// `close()`, or better use `withBrowserSession`, which closes it even when the body throws.
public final class BrowserSession: Sendable {
  /// True when REPOSCROLL_SKIP_BROWSER=1 asks to skip browser tests (local quick runs only).
  public static var skipRequested: Bool {
    ProcessInfo.processInfo.environment["REPOSCROLL_SKIP_BROWSER"] == "1"
  }

  /// The WebDriver session id.
  public let id: String
  /// The engine.
  public let engine: BrowserEngine
  /// The browser's version as the driver reports it.
  public let browserVersion: String
  /// Chromium's browser process id, as chromedriver reports it.
  public let browserPID: Int32?
  /// The browser's temporary profile folder, used to find its helper processes at close.
  public let userDataDirectory: String?
  /// The driver child process.
  public let driver: ProcessRunner
  /// Firefox's WebDriver BiDi socket, for what classic WebDriver cannot do (see `setViewport`).
  let webSocketURL: String?
  /// The X server WebKit draws into.
  let display: ProcessRunner?
  let http: WebDriverHTTP
  let options: BrowserSessionOptions
  private let closed = Mutex(false)

  private init(
    id: String, reply: WebDriverJSON?, driver: ProcessRunner, display: ProcessRunner?, http: WebDriverHTTP,
    options: BrowserSessionOptions
  ) {
    self.id = id
    self.engine = options.engine
    self.browserVersion = reply?["browserVersion"]?.string ?? ""
    self.browserPID =
      reply?["goog:processID"]?.int.map(Int32.init) ?? reply?["moz:processID"]?.int.map(Int32.init)
    self.userDataDirectory = reply?["chrome"]?["userDataDir"]?.string ?? reply?["moz:profile"]?.string
    self.webSocketURL = reply?["webSocketUrl"]?.string
    self.driver = driver
    self.display = display
    self.http = http
    self.options = options
  }

  /// Starts the engine's driver on a free loopback port, waits for it to be ready and opens a session.
  /// Throws `.unavailable` when the binaries are missing (tests then fail, they do not skip).
  public static func start(options: BrowserSessionOptions = .init()) async throws -> BrowserSession {
    let engine = options.engine
    if let missing = engine.missing { throw WebDriverError.unavailable(missing) }
    var options = options
    if engine == .firefox && options.firefoxProfile == nil {
      options.firefoxProfile = await FirefoxProfileTemplate.shared.copy()
    }
    var lastError: any Error = WebDriverError.process("\(engine) driver never started")
    // A freshly probed port can be taken by another process before the driver binds it: retry.
    for _ in 0..<3 {
      var display: ProcessRunner?
      var environment: [String: String] = [:]
      if engine == .webkit {
        let (xvfb, name) = try await VirtualDisplay.start()
        display = xvfb
        environment["DISPLAY"] = name
        if !options.webKitCompositing { environment["WEBKIT_DISABLE_COMPOSITING_MODE"] = "1" }
        if options.reducedMotion { environment["XDG_CONFIG_HOME"] = try gtkSettingsWithoutAnimations() }
      }
      let port = try ProcessRunner.freeLoopbackPort()
      let driver: ProcessRunner
      do {
        driver = try ProcessRunner(
          executable: engine.driverPath, arguments: engine.driverArguments(port: port),
          environment: environment,
          lineBuffered: false, name: "\(engine)-driver")
      } catch {
        await display?.terminate(grace: .seconds(2))
        throw error
      }
      let http = WebDriverHTTP(port: port, defaultTimeout: options.commandTimeout)
      do {
        try await waitForReady(http, driver: driver, timeout: options.startupTimeout)
        let reply = try await http.send(
          "POST", "/session", body: options.capabilities, timeout: options.startupTimeout)
        guard let id = reply["sessionId"]?.string else {
          throw WebDriverError.unexpectedReply(command: "POST /session", reply: reply.description)
        }
        let session = BrowserSession(
          id: id, reply: reply["capabilities"], driver: driver, display: display,
          http: http, options: options)
        do {
          try await session.prepare()
        } catch {
          await session.close()
          throw error
        }
        return session
      } catch {
        lastError = error
        await driver.terminate(grace: .seconds(2))
        await display?.terminate(grace: .seconds(2))
        if driver.errorOutput.contains("bind") == false && driver.output.contains("bind") == false {
          break
        }
      }
    }
    throw lastError
  }

  /// What the capabilities cannot say: the window size outside Chromium, media emulation in Chromium.
  private func prepare() async throws {
    switch engine {
    case .chromium:
      var features: [WebDriverJSON] = []
      if options.reducedMotion { features.append(["name": "prefers-reduced-motion", "value": "reduce"]) }
      if options.dark { features.append(["name": "prefers-color-scheme", "value": "dark"]) }
      if !features.isEmpty { try await cdp("Emulation.setEmulatedMedia", ["features": .array(features)]) }
    case .firefox, .webkit:
      try await command(
        "POST", "/window/rect",
        body: ["width": .number(Double(options.width)), "height": .number(Double(options.height))])
    }
  }

  /// A config folder whose GTK settings turn animations off, which WebKitGTK reports as
  /// `prefers-reduced-motion: reduce`.
  private static func gtkSettingsWithoutAnimations() throws -> String {
    let folder = try ScratchFolder.make("gtk")
    try FileManager.default.createDirectory(atPath: folder + "/gtk-3.0", withIntermediateDirectories: true)
    try Data("[Settings]\ngtk-enable-animations=0\n".utf8).write(
      to: URL(fileURLWithPath: folder + "/gtk-3.0/settings.ini"))
    return folder
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
        throw WebDriverError.process("\(driver.name) exited before it was ready\n\(driver.transcript)")
      }
      guard ContinuousClock.now < deadline else {
        throw WebDriverError.timeout(
          "\(driver.name) not ready within \(timeout) (last: \(last))\n\(driver.transcript)")
      }
      try await Task.sleep(for: .milliseconds(50))  // Polls: the driver answers /status when ready.
    }
  }

  /// Deletes the session, stops the driver and kills any browser process left behind. Idempotent.
  public func close() async {
    let alreadyClosed = closed.withLock { closed in
      defer { closed = true }
      return closed
    }
    if alreadyClosed { return }
    _ = try? await http.send("DELETE", "/session/\(id)", timeout: .seconds(10))
    await driver.terminate(grace: .seconds(3))
    killStrayBrowserProcesses()
    await display?.terminate(grace: .seconds(2))
  }

  /// Chromium lingers after the session is deleted and may have left the driver's process group:
  /// find its processes by this session's unique profile folder (or browser pid) and SIGKILL them.
  private func killStrayBrowserProcesses() {
    var victims: [Int32] = []
    if let browserPID, BrowserSession.isProcessAlive(browserPID) { victims.append(browserPID) }
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
    if options.keepsProfile { return }
    for folder in Set([userDataDirectory, options.firefoxProfile].compactMap { $0 })
    where folder.hasPrefix(NSTemporaryDirectory()) || folder.hasPrefix("/tmp/") {
      try? FileManager.default.removeItem(atPath: folder)
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

/// Runs `body` with a fresh browser session and always closes it afterwards, also when `body` throws.
public func withBrowserSession<T>(
  options: BrowserSessionOptions = .init(), isolation: isolated (any Actor)? = #isolation,
  _ body: (BrowserSession) async throws -> T
) async throws -> T {
  let session = try await BrowserSession.start(options: options)
  return try await withCleanup({ await session.close() }) { try await body(session) }
}

/// The Chromium-only names this client had before it drove three engines, kept so that branches
/// written against them still build.
public typealias ChromeSession = BrowserSession
/// See `ChromeSession`.
public typealias ChromeSessionOptions = BrowserSessionOptions

extension BrowserSession {
  /// True when Chromium and chromedriver are installed.
  public static var isAvailable: Bool { BrowserEngine.chromium.missing == nil }
}

/// Runs `body` with a fresh Chromium session (`withBrowserSession` with Chromium options).
public func withChromeSession<T>(
  options: BrowserSessionOptions = .init(), isolation: isolated (any Actor)? = #isolation,
  _ body: (BrowserSession) async throws -> T
) async throws -> T {
  try await withBrowserSession(options: options, body)
}
