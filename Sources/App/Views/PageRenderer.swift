import GitHub
import HTTP
import Mustache
import Paging

/// Whole pages: the page view with the form and the reader's account area, and the pages that are
/// only a message (404, sign-in problems). Shared by the handlers that answer with a page.
struct PageRenderer: Sendable {
  /// Hashed asset URLs for every page.
  let assets: MustacheValue
  /// Whether the server sends a GitHub token (the core-limit notice's advice).
  let hasToken: Bool
  let page: TemplateRef
  let message: TemplateRef

  /// A page view with the form filled in and no list yet; with sign-in on, the header's account
  /// area for `reader` on the page at `here` and the reader's notice.
  func base(q: String, sort: SearchSort?, order: SortOrder, reader: Reader = .anonymous, here: String = "/")
    -> PageView
  {
    var view = PageView(
      title: "RepoScroll", assets: assets, q: q, sort: sort, order: order, landing: false, hasToken: hasToken)
    view.account = AccountView.value(reader, here: here)
    view.readerNotice = reader.notice?.text
    return view
  }

  /// A whole page rendered at once.
  func rendered(_ template: TemplateRef, _ view: PageView, status: HTTPStatus) throws -> HTTPResponse {
    var body: [UInt8] = []
    body.reserveCapacity(8192)
    try template.render(view.mustacheValue, into: &body)
    return SecurityHeaders.htmlResponse(status, .bytes(body))
  }

  /// The 404 page.
  func notFound() -> HTTPResponse {
    var view = base(q: "", sort: nil, order: .desc)
    view.title = "Not found · RepoScroll"
    view.message = (heading: "Page not found", text: "There is nothing at this address.", back: "/")
    return (try? rendered(message, view, status: .notFound)) ?? .text(.notFound, "not found")
  }

  /// A message page with a way back (and, with sign-in on, a way to sign in again), private to `reader`.
  func problem(_ status: HTTPStatus, _ heading: String, _ text: String, _ reader: Reader, back: String = "/")
    -> HTTPResponse
  {
    var view = base(q: "", sort: nil, order: .desc, reader: reader, here: back)
    view.title = heading + " · RepoScroll"
    view.message = (heading: heading, text: text, back: back)
    var response = (try? rendered(message, view, status: status)) ?? .text(status, text)
    reader.apply(to: &response)
    response.replaceOrAddHeader(name: "Cache-Control", value: "no-store")
    return response
  }

  /// `response` marked private with the reader's cookies when it is personal; else unchanged.
  static func personal(_ response: HTTPResponse, _ reader: Reader) -> HTTPResponse {
    guard reader.isPersonal else { return response }
    var response = response
    reader.apply(to: &response)
    return response
  }
}
