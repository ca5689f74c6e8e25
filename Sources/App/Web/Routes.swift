import HTTP
import HTTPServer
import Mustache

/// The route table: every route registered once, under the name that labels it in `/metrics`, and
/// served by a handler that takes only what it uses; every answer but a static file's goes through
/// one pipeline (`Pipeline`). The sign-in routes exist only when sign-in is on.
///
/// ```swift
/// let handler = routes.handler  // what the server runs
/// ```
struct Routes: Sendable {
  /// Every ES module in the static folder, and the ones the page loads (in order; they import the rest).
  static let moduleFiles = [
    "cards.js", "scroll.js", "place.js", "virtual.js", "header.js", "feed.js", "details.js", "motion.js",
    "localtime.js",
  ]
  static let entryModules = ["header.js", "feed.js", "details.js", "motion.js", "localtime.js"]

  let pages: PageHandler
  let fragments: FragmentHandler
  let details: DetailsHandler
  let signIn: SignInHandler?
  let ops: OpsHandler
  let statics: StaticHandler
  /// The 404 page for every path no route matches.
  let notFound: PageRenderer
  /// The pipeline every routed answer goes through (one step: see `Pipeline`).
  let pipeline: HTTPMiddleware

  /// What the server runs: static files on their own lean path (`StaticHandler`), everything else
  /// through the router.
  var handler: HTTPHandler {
    let statics = self.statics
    let routed = router.handler
    return { request, context in
      if statics.serves(request) { return await statics.file(request) }
      return try await routed(request, context)
    }
  }

  /// The star histories' path and the slash before a card's owner, as the card writer appends it:
  /// `/fragments/stars/{owner}/{repo}` is one card's history (`CardBatch` links it), and
  /// `/fragments/stars?r=…` several (the page names it to details.js as `feed.starsBatch`).
  static let starsPathSlash: StaticString = "/fragments/stars/"
  /// `starsPathSlash` without the slash: the route's own path.
  static let starsPath = String(String(describing: starsPathSlash).dropLast())

  /// The router with every route but the static files, and the pipeline.
  var router: Router {
    var router = Router()
    router.use(pipeline)
    router.get("/", name: "page", pages.search)
    router.get("/fragments/results", name: "fragment", fragments.search)
    router.get("/owners/{login}", name: "owner", pages.owner)
    router.get("/fragments/owners/{login}", name: "owner_fragment", fragments.owner)
    router.get(Self.starsPath, name: "stars_batch", details.starsBatch)
    router.get(Self.starsPath + "/{owner}/{repo}", name: "stars", details.stars)
    router.get("/avatars/{id}", name: "avatar", details.avatar)
    if let signIn {
      router.get("/login", name: "login", signIn.login)
      router.get("/login/callback", name: "login_callback", signIn.callback)
      router.post("/logout", name: "logout", signIn.logout)
      router.get("/logout", name: "logout", signIn.logoutPage)
    }
    router.get("/healthz", name: "healthz", ops.health)
    router.get("/metrics", name: "metrics", ops.metrics)
    let notFound = self.notFound
    router.fallback(name: "other") { _, _ in notFound.notFound() }
    return router
  }

  /// Loads the app's templates from `directory`: every file there is a template, each bound to or
  /// checked against the view model it renders (a name a template reads that its view model lacks
  /// stops startup with file, line and column), with the indentation and line-break runs HTML does
  /// not show trimmed from their output. Which of them a handler renders it checks when it is built
  /// (`TemplateRef`).
  static func loadTemplates(directory: String) throws(MustacheError) -> TemplateLibrary {
    try TemplateLibrary(
      directory: directory, bindings: ["partials/card": CardField.schema], vocabulary: vocabulary(of:),
      trimWhitespace: true)
  }

  /// The views whose templates startup checks; each template belongs to exactly one of them.
  static var views: [any TemplateView.Type] { [PageView.self, StarsView.self] }

  /// The names template `name` may read: those of the view that claims it (nil when none does, which
  /// stops startup with the template's name).
  static func vocabulary(of name: String) -> MustacheSchema? {
    views.first { $0.templates.contains(name) }?.vocabulary
  }
}

extension RepoScrollApp {
  /// The routes this app serves, one a line: method, path pattern (`{name}` marks a parameter) and
  /// the name that labels it in `/metrics`, in the order they are matched; the static files first.
  /// `repo-scroll --list-routes` prints them; `script/redbot` lints every one.
  public var routeListing: [String] {
    ["GET /static/{file} static"]
      + routes.router.registrations.map { "\($0.method.rawValue) \($0.pattern) \($0.name)" }
  }
}
