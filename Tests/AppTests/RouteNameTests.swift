import Testing

@testable import App

@Suite(.timeLimit(.minutes(3))) struct RouteNameTests {
  @Test(arguments: [
    ("/", "page"), ("/fragments/results", "fragment"), ("/fragments/results/x", "fragment"),
    ("/fragments/stars/a/b", "stars"), ("/fragments/stars", "stars_batch"), ("/fragments/starsx", "other"),
    ("/fragments/owners/a", "owner_fragment"), ("/owners/a", "owner"), ("/avatars/1", "avatar"),
    ("/static/app.css", "static"), ("/healthz", "healthz"), ("/metrics", "metrics"), ("/metrics/x", "other"),
    ("", "other"), ("/fragments/result", "other"), ("//", "other"),
  ])
  func labelsArePrefixesOrWholePaths(path: String, label: String) {
    #expect(Routes.routeName(path[...]) == label)
    // A path cut out of a longer target labels the same.
    let target = path + "?q=/"
    #expect(
      Routes.routeName(target[..<target.utf8.index(target.startIndex, offsetBy: path.utf8.count)]) == label)
  }
}
