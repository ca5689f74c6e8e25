import App
import Clocks
import Foundation
import TestSupport
import Testing

/// The templates folder's files define which templates exist; each handler looks up the ones it
/// renders when it is built, so a missing one stops startup with its name and its user.
@Suite(.timeLimit(.minutes(6))) struct TemplateCheckTests {
  @Test(arguments: [
    ("partials/stars-batch", "DetailsHandler"), ("partials/page-start", "PageHandler"),
    ("message", "PageRenderer"),
  ])
  func aTemplateAHandlerRendersThatHasNoFileStopsStartup(name: String, user: String) throws {
    try AppHarness.withTemplateCopy { folder, configuration in
      // Callers of the template go too, so that only a handler still names it.
      try FileManager.default.removeItem(atPath: folder + "/\(name).mustache")
      if name == "partials/page-start" {
        try "{{> partials/page-end}}".write(
          toFile: folder + "/page.mustache", atomically: true, encoding: .utf8)
      }
      let failure = AppHarness.startupFailure(configuration, "startup should fail without \(name)") ?? ""
      expectTrue(failure.contains("\(folder)/\(name).mustache is missing"), "\(failure)")
      expectTrue(failure.contains(user), "\(failure)")
    }
  }

  @Test func aTemplateNoHandlerRendersIsStillLoadedAndChecked() throws {
    try AppHarness.withTemplateCopy { folder, configuration in
      // Only other templates call `partials/footer`; `PageView` claims it, so it reads the page's names.
      let footer = folder + "/partials/footer.mustache"
      try "{{title}}".write(toFile: footer, atomically: true, encoding: .utf8)
      _ = try RepoScrollApp(configuration: configuration, time: .system)
      try "{{notAName}}".write(toFile: footer, atomically: true, encoding: .utf8)
      let failure = AppHarness.startupFailure(configuration, "a name the page view lacks") ?? ""
      expectTrue(failure.contains("notAName"), "\(failure)")
    }
  }

  @Test func aTemplateNoViewClaimsStopsStartupNamingIt() throws {
    try AppHarness.withTemplateCopy { folder, configuration in
      try "{{title}}".write(toFile: folder + "/extra.mustache", atomically: true, encoding: .utf8)
      let failure = AppHarness.startupFailure(configuration, "a template no view claims") ?? ""
      expectTrue(failure.contains("'extra'") && failure.contains("TemplateView"), "\(failure)")
    }
  }
}
