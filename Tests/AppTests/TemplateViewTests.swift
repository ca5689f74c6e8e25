import Foundation
import Mustache
import TestSupport
import Testing

@testable import App

/// Each template under `Templates/` is checked against the vocabulary of the one view that claims it,
/// and the views' lists name only templates that exist.
@Suite("Template views: every template belongs to exactly one view", .timeLimit(.minutes(6)))
struct TemplateViewTests {
  /// Every template's name: its path under `Templates/` without `.mustache`.
  static func templateNames() throws -> Set<String> {
    let root = try ProcessRunner.packageRoot() + "/Templates"
    let paths = try #require(FileManager.default.subpathsOfDirectory(atPath: root) as [String]?)
    return Set(paths.filter { $0.hasSuffix(".mustache") }.map { String($0.dropLast(".mustache".count)) })
  }

  @Test func everyTemplateIsClaimedByOneViewOrBound() throws {
    let bound: Set<String> = ["partials/card"]  // bound to `CardField.schema` in `Routes.loadTemplates`
    for name in try Self.templateNames().subtracting(bound) {
      let claims = Routes.views.filter { $0.templates.contains(name) }.count
      expectEqual(claims, 1, "\(name) is claimed by \(claims) views")
    }
  }

  @Test func theViewsNameOnlyTemplatesThatExist() throws {
    let names = try Self.templateNames()
    for view in Routes.views {
      expectTrue(
        view.templates.subtracting(names).isEmpty, "\(view) names \(view.templates.subtracting(names))")
    }
  }

  @Test func aTemplateNoViewClaimsStopsStartupNamingIt() throws {
    expectTrue(Routes.vocabulary(of: "partials/new-thing") == nil)
    let error = #expect(throws: MustacheError.self) {
      try TemplateLibrary(templates: ["partials/new-thing": "{{title}}"], vocabulary: Routes.vocabulary(of:))
    }
    expectEqual(error.map { "\($0)" }?.contains("partials/new-thing"), true)
  }

  @Test func aNameOutsideTheClaimingViewIsRefused() throws {
    // `title` is the page's, not the stars view's.
    #expect(throws: MustacheError.self) {
      try TemplateLibrary(templates: ["partials/stars": "{{title}}"], vocabulary: Routes.vocabulary(of:))
    }
    _ = try TemplateLibrary(templates: ["page": "{{title}}"], vocabulary: Routes.vocabulary(of:))
  }
}
