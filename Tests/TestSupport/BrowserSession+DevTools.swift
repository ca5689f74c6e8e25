extension BrowserSession {
  /// Runs a Chrome DevTools Protocol command (chromedriver's goog/cdp/execute extension; Chromium only).
  @discardableResult
  public func cdp(_ command: String, _ params: WebDriverJSON = [:]) async throws -> WebDriverJSON {
    guard engine == .chromium else {
      throw WebDriverError.unavailable("\(command): the DevTools protocol is Chromium's, not \(engine)'s")
    }
    return try await self.command(
      "POST", "/goog/cdp/execute", body: ["cmd": .string(command), "params": params])
  }

  /// Installs `source` to run in every new document before the page's own scripts, surviving reloads.
  @discardableResult
  public func addScriptToEvaluateOnNewDocument(_ source: String) async throws -> String {
    let reply = try await cdp("Page.addScriptToEvaluateOnNewDocument", ["source": .string(source)])
    return reply["identifier"]?.string ?? ""
  }

  /// Browser console entries since the previous call (chromedriver's "se/log", which drains its buffer);
  /// other drivers have no console log, and give none.
  public func browserLogs() async throws -> [BrowserLogEntry] {
    guard engine == .chromium else { return [] }
    let value = try await command("POST", "/se/log", body: ["type": "browser"])
    guard let entries = value.array else {
      throw WebDriverError.unexpectedReply(command: "POST /se/log", reply: value.description)
    }
    return entries.map {
      BrowserLogEntry(
        level: $0["level"]?.string ?? "", message: $0["message"]?.string ?? "",
        source: $0["source"]?.string ?? "", timestamp: $0["timestamp"]?.double ?? 0)
    }
  }

  /// Installs `PageProbe.script` (layout shifts, long tasks, console errors) for all later documents.
  public func installPageProbe() async throws {
    try await addScriptToEvaluateOnNewDocument(PageProbe.script)
  }

  /// What the page probe has recorded in the current document.
  public func pageProbe() async throws -> PageProbe {
    let value = try await executeScript("return window.__reposcrollProbe || null;")
    guard let object = value.object else {
      throw WebDriverError.unexpectedReply(
        command: "pageProbe", reply: "probe missing: call installPageProbe() before navigating")
    }
    return PageProbe(
      cumulativeLayoutShift: object["cls"]?.double ?? 0, layoutShiftCount: object["shifts"]?.int ?? 0,
      longTaskDurations: object["longTasks"]?.array?.compactMap(\.double) ?? [],
      consoleErrors: object["errors"]?.array?.compactMap(\.string) ?? [])
  }
}

/// One entry of the browser console log.
public struct BrowserLogEntry: Sendable, Equatable {
  /// "SEVERE", "WARNING", "INFO", ...
  public let level: String
  /// The text, prefixed by chromedriver with the source location.
  public let message: String
  /// "console-api", "javascript", "network", ...
  public let source: String
  /// Milliseconds since the epoch.
  public let timestamp: Double

  /// True for errors (console.error, uncaught exceptions, failed loads).
  public var isError: Bool { level == "SEVERE" }
}

/// Layout shifts, long tasks and console errors recorded in the page by an injected script.
public struct PageProbe: Sendable, Equatable {
  /// Sum of layout-shift values without recent input (the CLS numerator over the whole page life).
  public let cumulativeLayoutShift: Double
  /// How many layout-shift entries counted.
  public let layoutShiftCount: Int
  /// Durations in ms of tasks over 50 ms.
  public let longTaskDurations: [Double]
  /// console.error calls, uncaught errors and unhandled rejections.
  public let consoleErrors: [String]

  /// Runs before any page script (idempotent, so installing it twice is harmless).
  public static let script = """
    (() => {
      if (window.__reposcrollProbe) return;
      const probe = { cls: 0, shifts: 0, longTasks: [], errors: [] };
      Object.defineProperty(window, '__reposcrollProbe', { value: probe });
      const observe = (type, handle) => {
        try {
          new PerformanceObserver((list) => list.getEntries().forEach(handle))
            .observe({ type, buffered: true });
        } catch (e) { probe.errors.push('probe: ' + type + ' unsupported'); }
      };
      observe('layout-shift', (e) => { if (!e.hadRecentInput) { probe.cls += e.value; probe.shifts += 1; } });
      observe('longtask', (e) => probe.longTasks.push(e.duration));
      const original = console.error;
      console.error = function (...args) {
        probe.errors.push(args.map(String).join(' '));
        return original.apply(this, args);
      };
      addEventListener('error', (e) => probe.errors.push('error: ' + (e.message || e.type)), true);
      addEventListener('unhandledrejection', (e) => probe.errors.push('rejection: ' + String(e.reason)));
    })();
    """
}
