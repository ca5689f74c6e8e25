import Foundation

/// A Firefox profile that one bare session has already started in, copied for every later Firefox
/// session of the process. Firefox's first start in an empty profile creates its databases and startup
/// cache: 5.3 CPU-s a session here, against 2.9 in a copy of a used profile (measured, 5 sessions each).
/// The browser tests start about a dozen Firefox sessions a run.
///
/// A copy holds no state of the tests: the template's session opened no page, and
/// geckodriver writes each session's own preferences into its copy's `user.js` (the template's is
/// removed, so no preference of the bare session carries over).
///
/// ```swift
/// let profile = await FirefoxProfileTemplate.shared.copy()  // a new folder, removed at close
/// ```
actor FirefoxProfileTemplate {
  /// The process's template, made by the first Firefox session that asks.
  static let shared = FirefoxProfileTemplate()

  /// The template's folder once made; nil until then, or when making it failed.
  private var template: String?
  /// Whether making the template was tried (it is tried once: a failure leaves sessions fresh profiles).
  private var tried = false

  /// A new folder holding a copy of the template, or nil when there is no template (a session then
  /// starts in geckodriver's own fresh profile, as before). A caller that arrives while the first one
  /// makes the template also gets nil: the browser suites start one session at a time.
  func copy() async -> String? {
    if !tried {
      tried = true
      template = await Self.make()
    }
    guard let template, let parent = try? ScratchFolder.make("firefox-profile") else { return nil }
    let folder = parent + "/profile"
    do {
      try FileManager.default.copyItem(atPath: template, toPath: folder)  // the whole tree, links as links
      return folder
    } catch {
      try? FileManager.default.removeItem(atPath: parent)
      return nil
    }
  }

  /// Starts one bare session in an empty folder and closes it, keeping the folder.
  private static func make() async -> String? {
    guard let folder = try? ScratchFolder.make("firefox-template") else { return nil }
    var options = BrowserSessionOptions(engine: .firefox)
    options.firefoxProfile = folder
    options.keepsProfile = true
    do {
      let session = try await BrowserSession.start(options: options)
      await session.close()
    } catch {
      return nil
    }
    // Preferences are the sessions' own, and the locks belonged to the closed browser.
    for name in ["user.js", "lock", ".parentlock"] {
      try? FileManager.default.removeItem(atPath: folder + "/" + name)
    }
    return folder
  }
}
