import Clocks
import HTTP
import HTTPServer
import Mustache

/// What the site serves from disk, loaded once at startup: the parsed templates, the static files
/// with their hashed URLs, the JavaScript modules, and the asset URLs the page template names.
///
/// ```swift
/// let site = try SiteFiles(configuration, time: time)  // a template error names file, line and column
/// site.staticFiles.hashedPath(for: "app.css", urlPrefix: "/static")
/// ```
struct SiteFiles: Sendable {
  let templates: TemplateLibrary
  let staticFiles: StaticFiles
  let modules: ModuleSet
  /// `css`, `icon`, `scripts` and `preload`: the hashed URLs the page's head links.
  let assets: MustacheValue

  /// Reads `Templates/` and `Public/` from the configured folders; a template that does not parse,
  /// a missing asset or a missing folder stops startup with a message that names it.
  init(_ configuration: AppConfiguration, time: TimeSource) throws(RepoScrollApp.StartupError) {
    typealias StartupError = RepoScrollApp.StartupError
    do throws(MustacheError) {
      templates = try Routes.loadTemplates(directory: configuration.templatesDirectory)
    } catch {
      // A template no view claims: say where to claim it.
      let hint =
        error.kind == .unbound
        ? ": list it in the `templates` of the TemplateView it renders ("
          + Routes.views.map { "\($0)" }.joined(separator: " or ") + ")" : ""
      throw StartupError(description: "template error: \(error)\(hint)")
    }
    do {
      var security = HTTPHeaders()
      SecurityHeaders.apply(to: &security)
      staticFiles = try StaticFiles(root: configuration.publicDirectory, headers: security, time: time)
    } catch {
      throw StartupError(description: "static files: \(error)")
    }
    do {
      modules = try ModuleSet(
        files: Routes.moduleFiles, entries: Routes.entryModules, staticFiles: staticFiles)
    } catch {
      throw StartupError(
        description: "static files: \(configuration.publicDirectory)/\(error.name) is missing")
    }
    let files = staticFiles
    func asset(_ name: String) throws(StartupError) -> MustacheValue {
      guard let path = files.hashedPath(for: name, urlPrefix: "/static") else {
        throw StartupError(description: "static files: \(configuration.publicDirectory)/\(name) is missing")
      }
      return .string(path)
    }
    assets = .object([
      "css": try asset("app.css"), "icon": try asset("favicon.svg"),
      "scripts": .list(modules.entryURLs.map { .string($0) }),
      "preload": .list(modules.importedURLs.map { .string($0) }),
    ])
  }
}
