import Foundation

extension BrowserSession {
  /// Sends a command under this session, for anything without a dedicated method.
  @discardableResult
  public func command(
    _ method: String, _ path: String, body: WebDriverJSON? = nil, timeout: Duration? = nil
  ) async throws -> WebDriverJSON {
    try await http.send(method, "/session/\(id)\(path)", body: body, timeout: timeout)
  }

  private var navigationTimeout: Duration { options.pageLoadTimeout + .seconds(10) }

  // MARK: Navigation

  /// Loads `url` and waits for the load event (page-load strategy "normal").
  public func navigate(to url: String) async throws {
    try await command("POST", "/url", body: ["url": .string(url)], timeout: navigationTimeout)
  }

  /// The top-level document's URL.
  public func currentURL() async throws -> String {
    let value = try await command("GET", "/url")
    guard let url = value.string else {
      throw WebDriverError.unexpectedReply(command: "GET /url", reply: value.description)
    }
    return url
  }

  /// The document title.
  public func title() async throws -> String {
    try await command("GET", "/title").string ?? ""
  }

  /// Reloads the page, as the user's reload button does.
  public func refresh() async throws {
    try await command("POST", "/refresh", body: [:], timeout: navigationTimeout)
  }

  /// Goes one step back in history.
  public func back() async throws {
    try await command("POST", "/back", body: [:], timeout: navigationTimeout)
  }

  /// Goes one step forward in history.
  public func forward() async throws {
    try await command("POST", "/forward", body: [:], timeout: navigationTimeout)
  }

  // MARK: Scripts

  /// Runs `script` as a function body (use `arguments[i]` and `return`) and returns its JSON result.
  @discardableResult
  public func executeScript(_ script: String, args: [WebDriverJSON] = []) async throws -> WebDriverJSON {
    do {
      return try await command(
        "POST", "/execute/sync", body: ["script": .string(script), "args": .array(args)])
    } catch WebDriverError.command(let command, let status, let error, let message) {
      // Name the script: a test runs many, and the driver's error does not say which one failed.
      throw WebDriverError.command(
        command: "\(command) of `\(script.prefix(100))`", status: status, error: error, message: message)
    } catch WebDriverError.transport(let command, let message) {
      throw WebDriverError.transport(command: "\(command) of `\(script.prefix(100))`", message: message)
    }
  }

  /// Runs `script` as a function body whose last argument is a callback; returns what it is called with.
  @discardableResult
  public func executeAsyncScript(_ script: String, args: [WebDriverJSON] = []) async throws -> WebDriverJSON {
    try await command(
      "POST", "/execute/async", body: ["script": .string(script), "args": .array(args)],
      timeout: options.scriptTimeout + .seconds(10))
  }

  /// Polls the JavaScript expression `expression` until it is truthy and returns its value.
  @discardableResult
  public func waitForScript(
    _ expression: String, description: String? = nil, timeout: Duration = .seconds(10),
    poll: Duration = .milliseconds(100)
  ) async throws -> WebDriverJSON {
    try await waitForValue(description ?? expression, timeout: timeout, poll: poll) {
      let value: WebDriverJSON
      do {
        value = try await self.executeScript("return (\(expression));")
      } catch let error as WebDriverError where error.errorCode == "script timeout" {
        // The page's main thread was busy for the whole script timeout (axe over 300 cards on a slow
        // machine): not an answer yet, so ask again until `timeout`.
        return nil
      }
      switch value {
      case .null, .bool(false), .number(0), .string(""): return nil
      default: return value
      }
    }
  }

  // MARK: Elements

  /// Every element matching the CSS selector, in document order; empty when none match.
  public func findElements(css selector: String) async throws -> [WebDriverElement] {
    let value = try await command(
      "POST", "/elements", body: ["using": "css selector", "value": .string(selector)])
    guard let items = value.array else {
      throw WebDriverError.unexpectedReply(command: "POST /elements", reply: value.description)
    }
    return items.compactMap(WebDriverElement.init(json:))
  }

  /// The first element matching the CSS selector, or nil.
  public func findElement(css selector: String) async throws -> WebDriverElement? {
    try await findElements(css: selector).first
  }

  /// The element's rendered text.
  public func text(of element: WebDriverElement) async throws -> String {
    try await command("GET", "/element/\(element.id)/text").string ?? ""
  }

  /// The element's attribute, or nil when it has none.
  public func attribute(_ name: String, of element: WebDriverElement) async throws -> String? {
    try await command("GET", "/element/\(element.id)/attribute/\(name)").string
  }

  /// The element's DOM property (for example "value" or "naturalWidth").
  public func property(_ name: String, of element: WebDriverElement) async throws -> WebDriverJSON {
    try await command("GET", "/element/\(element.id)/property/\(name)")
  }

  /// Clicks the element (scrolling it into view first, as WebDriver specifies).
  public func click(_ element: WebDriverElement) async throws {
    try await command("POST", "/element/\(element.id)/click", body: [:], timeout: navigationTimeout)
  }

  /// Types `text` into the element; WebDriverKey constants produce special keys.
  public func sendKeys(_ text: String, to element: WebDriverElement) async throws {
    try await command("POST", "/element/\(element.id)/value", body: ["text": .string(text)])
  }

  /// Presses and releases each key of `keys` on whatever has focus (W3C key actions).
  public func pressKeys(_ keys: String) async throws {
    var steps: [WebDriverJSON] = []
    for key in keys {
      steps.append(["type": "keyDown", "value": .string(String(key))])
      steps.append(["type": "keyUp", "value": .string(String(key))])
    }
    try await command(
      "POST", "/actions", body: ["actions": [["type": "key", "id": "keyboard", "actions": .array(steps)]]])
    try await command("DELETE", "/actions")
  }

  /// Presses the keys of `keys` together (for example Control and End) and releases them in reverse.
  public func pressChord(_ keys: [String]) async throws {
    let steps: [WebDriverJSON] =
      keys.map { ["type": "keyDown", "value": .string($0)] }
      + keys.reversed().map { ["type": "keyUp", "value": .string($0)] }
    try await command(
      "POST", "/actions", body: ["actions": [["type": "key", "id": "keyboard", "actions": .array(steps)]]])
    try await command("DELETE", "/actions")
  }

  /// A PNG of the viewport.
  /// WebKit may not have painted the last change yet: it is given two animation frames first.
  public func screenshot() async throws -> [UInt8] {
    if engine == .webkit && options.javaScriptEnabled {
      try await executeAsyncScript(
        "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => done(true)));")
    }
    let value = try await command("GET", "/screenshot")
    guard let base64 = value.string, let data = Data(base64Encoded: base64) else {
      throw WebDriverError.unexpectedReply(command: "GET /screenshot", reply: "not base64")
    }
    return [UInt8](data)
  }
}
