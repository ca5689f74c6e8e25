import GitHub
import Mustache

/// The root view model of full pages (`page`, `partials/page-start`, `partials/page-end`, `message`).
struct PageView: MustacheRepresentable, TemplateView {
  /// The page heading above the feed.
  struct Heading: Sendable {
    var title: String
    var subtitle: String?
    var link: (href: String, label: String)?
  }

  var title: String
  /// Hashed asset URLs, built once at startup.
  var assets: MustacheValue
  var q: String
  var sort: SearchSort?
  var order: SortOrder
  var notice: String?
  var landing: Bool
  /// Whether the server sends a GitHub token: the rate-limit notice tells how to raise the limit.
  var hasToken = false
  var heading: Heading?
  var feedLabel = ""
  var previousPage: String?
  var page = 1
  var batch: MustacheValue?
  /// For the message template: heading, text, back link.
  var message: (heading: String, text: String, back: String?)?
  /// The header's account area when sign-in is on: the reader's login, avatar and sign-out form, or
  /// the sign-in link (`AccountView`).
  var account: MustacheValue?
  /// A notice about the reader's session (ended, revoked, store unavailable).
  var readerNotice: String?

  /// The page and everything it renders inside: the head and header, the landing, the list's states,
  /// its batches of cards (also the fragments', `partials/cards`) and the messages.
  static let templates: Set<String> = [
    "layout", "message", "page", "partials/cards", "partials/core-limit", "partials/footer", "partials/head",
    "partials/header", "partials/landing", "partials/page-end", "partials/page-start", "partials/state-empty",
    "partials/state-end", "partials/state-error-client", "partials/state-error", "partials/state-loading",
    "partials/state-ratelimited", "partials/tail",
  ]

  /// The page's templates read the page's names, a batch's (inside `{{#batch}}`) and the header's
  /// account area's.
  static let vocabulary = MustacheSchema(
    "the page view", names: templateNames + BatchView.templateNames + AccountView.templateNames)

  /// Every name `mustacheValue` answers, nested ones as templates read them (inside `{{#search.sorts}}`,
  /// `{{label}}` is an option's): the page templates are checked against these when they load.
  static let templateNames = [
    "title", "assets", "assets.css", "assets.icon", "assets.scripts", "search", "search.q", "search.sorts",
    "search.orders", "search.notice", "value", "label", "selected", "landing", "feed", "feed.label",
    "feed.starsBatch",
    "hasToken", "pager", "pager.page", "pager.prev", "heading", "heading.title", "heading.subtitle",
    "heading.link", "href", "message", "message.heading", "message.text", "message.back", "batch",
    "batch.countText", "assets.preload", "historyFailed",
  ]

  var mustacheValue: MustacheValue {
    var search: [String: MustacheValue] = [
      "q": .string(q),
      "sorts": PageView.sortOptions[sort?.rawValue ?? ""] ?? .null,
      "orders": order == .asc ? PageView.ascendingOptions : PageView.descendingOptions,
    ]
    if let notice { search["notice"] = .string(notice) }
    var value: [String: MustacheValue] = [
      "title": .string(title), "assets": assets, "search": .object(search), "landing": .bool(landing),
      "feed": .object(["label": .string(feedLabel), "starsBatch": .string(Routes.starsPath)]),
      "hasToken": .bool(hasToken),
      "historyFailed": StarsView.failedRequest,
    ]
    var pager: [String: MustacheValue] = ["page": .int(page)]
    if let previousPage { pager["prev"] = .string(previousPage) }
    value["pager"] = .object(pager)
    if let heading {
      var h: [String: MustacheValue] = ["title": .string(heading.title)]
      if let subtitle = heading.subtitle { h["subtitle"] = .string(subtitle) }
      if let link = heading.link {
        h["link"] = .object(["href": .string(link.href), "label": .string(link.label)])
      }
      value["heading"] = .object(h)
    }
    if let batch { value["batch"] = batch }
    if let account { value["account"] = account }
    if let readerNotice { value["readerNotice"] = .string(readerNotice) }
    if let message {
      var m: [String: MustacheValue] = ["heading": .string(message.heading), "text": .string(message.text)]
      if let back = message.back { m["back"] = .string(back) }
      value["message"] = .object(m)
    }
    return .object(value)
  }

  /// Human label of a sort field.
  static func label(_ sort: SearchSort?) -> String {
    switch sort {
    case nil: return "Best match"
    case .stars: return "Stars"
    case .forks: return "Forks"
    case .helpWantedIssues: return "Help-wanted issues"
    case .updated: return "Recently updated"
    }
  }

  /// The sort `<option>` lists, one per selected value, built once.
  static let sortOptions: [String: MustacheValue] = {
    let all: [SearchSort?] = [nil] + SearchSort.allCases.map { Optional($0) }
    var lists: [String: MustacheValue] = [:]
    for selected in all {
      lists[selected?.rawValue ?? ""] = .list(
        all.map { option in
          .object([
            "value": .string(option?.rawValue ?? ""), "label": .string(label(option)),
            "selected": .bool(option == selected),
          ])
        })
    }
    return lists
  }()

  static let descendingOptions = orderOptions(.desc)
  static let ascendingOptions = orderOptions(.asc)

  private static func orderOptions(_ selected: SortOrder) -> MustacheValue {
    .list(
      [(SortOrder.desc, "Descending"), (SortOrder.asc, "Ascending")].map { order, label in
        .object([
          "value": .string(order.rawValue), "label": .string(label), "selected": .bool(order == selected),
        ])
      })
  }
}
