import GitHub
import Mustache
import Paging

/// One batch of cards with what follows it: the next trigger or a terminal state (`partials/cards`,
/// and the `batch` of the page).
struct BatchView: MustacheRepresentable, Sendable {
  let batch: ListBatch<Repository>
  let kind: ListKind
  let batchSize: Int
  let prefetchMargin: Int
  /// The largest star count in the list so far.
  let largestStars: Int
  /// Unix seconds.
  let now: Int
  /// How many results upstream has for the query (before GitHub's cap), when known: the page's
  /// "1,681 repositories". Nil for fragments, which do not show it.
  var resultCount: Int? = nil
  /// True when nothing of the list is on the page before this batch (a full page's batch): its
  /// error and rate-limit states then say that nothing could be loaded, not that no more could.
  var firstOnPage = false
  /// Whose rate limit a rate-limited batch ran into (the notice says so).
  var limit = LimitOwner.site(offersSignIn: false)
  /// A notice about the reader's session shown with the batch (it ended, or sign-in is unavailable).
  var notice: String? = nil
  /// Where the batch starts, as its own link asks for it: retries ask there, and its first card
  /// carries its fragment URL (`data-batch`) so the page can fetch it again after dropping it.
  var cursor: ListCursor = .offset(0)
  /// Where the next batch starts; nil when the list ended or the batch failed.
  var next: ListCursor? = nil
  /// What the divider before the batch's first row says (the continuation after GitHub's first 1,000).
  var divider: String? = nil
  /// Why a list that ended at GitHub's cap could not go on.
  var capReason: String? = nil

  /// Whose rate limit a list is read on.
  enum LimitOwner: Sendable, Equatable {
    /// The signed-in reader's own.
    case reader
    /// The site's (its token, or none); with sign-in on, the notice links to `/login` to go on with
    /// one's own limit (built only when a batch is rate-limited: fragments are a hot path).
    case site(offersSignIn: Bool)
  }

  /// The batch as templates read it: names are answered on demand (`BatchObject`), so a fragment
  /// builds no dictionary per request.
  var mustacheValue: MustacheValue { .dynamic(BatchObject(self)) }

  /// Every name `mustacheValue` answers, nested ones as templates read them (inside `{{#next}}`,
  /// `{{href}}`): the batch templates are checked against these when they load.
  static let templateNames = [
    "cards", "total", "hasCards", "countText", "incomplete", "next", "href", "fragment", "page", "empty",
    "q", "end", "capReached", "totalText", "error", "message", "retryable", "retry", "retry.fragment",
    "retry.href", "first", "rateLimited", "resetText", "resetISO", "retryIn", "mine", "signIn", "batchNotice",
    "divider", "dividerAt", "reason", "capReason",
  ]

  /// The cards' shared part, the prefetch trigger marked.
  var cards: CardBatch {
    let items = batch.items
    return CardBatch(
      items: items, setsize: setsize,
      trigger: next == nil ? nil : prefetchIndex(batchCount: items.count, margin: prefetchMargin),
      largestStars: largestStars, now: now, batchURL: kind.fragmentLink(cursor),
      describedBy: divider == nil ? nil : Self.dividerID(cursor.position))
  }

  /// `aria-setsize`: the list's true total as GitHub last counted it (at least the rows listed), or
  /// -1 where it is unknown.
  var setsize: Int { batch.total > 0 ? batch.total : (batch.items.isEmpty ? 0 : -1) }

  /// The divider's element id: it precedes the row after `position`.
  static func dividerID(_ position: Int) -> String { "divider-\(position)" }

  /// The value of one top-level name; nil where the batch has none (the lookup then goes on down the
  /// context stack, as for a dictionary without the key).
  fileprivate func value(for key: String, cards: CardBatch) -> MustacheValue? {
    switch key {
    case "cards": return .rows(cards)
    case "total": return .int(setsize)
    case "divider": return divider.map { .string($0) }
    case "dividerAt": return .int(cursor.position)
    case "hasCards": return .bool(cards.count > 0)
    case "countText":
      guard let resultCount, resultCount > 0 else { return nil }
      return .string(Formatting.grouped(resultCount) + (resultCount == 1 ? " repository" : " repositories"))
    case "incomplete": return batch.incomplete ? .bool(true) : nil
    case "next":
      guard case .items = batch.state, let next else { return nil }
      return .dynamic(NextLink(kind: kind, cursor: next, page: next.position / batchSize + 1))
    case "empty":
      guard case .empty = batch.state else { return nil }
      return .object(["q": .string(kind.query.text)])
    case "end":
      switch batch.state {
      case .end(.noMoreResults(let count)):
        return .object([
          "capReached": false, "totalText": .string(Formatting.grouped(count)), "reason": .string("all"),
        ])
      case .end(.capReached(let cap)):
        var end: [String: MustacheValue] = [
          "capReached": true, "totalText": .string(Formatting.grouped(cap)), "reason": .string("cap"),
        ]
        if let capReason { end["capReason"] = .string(capReason) }
        return .object(end)
      default: return nil
      }
    case "error":
      guard case .error(let error) = batch.state, error.retryAfter == nil else { return nil }
      return .object([
        "message": .string(error.message), "retryable": .bool(error.retryable), "retry": retry,
        "first": .bool(firstOnPage),
      ])
    case "rateLimited":
      guard case .error(let error) = batch.state, let until = error.retryAfter else { return nil }
      return .object([
        "resetText": .string(Formatting.resetText(until, now: now)),
        "resetISO": .string(Formatting.iso(until)),
        "retryIn": .int(max(1, until - now)), "retry": retry, "first": .bool(firstOnPage),
        "mine": .bool(limit == .reader), "signIn": signInLink,
      ])
    case "batchNotice": return notice.map { .string($0) }
    default: return nil
    }
  }

  /// The rate-limit notice's sign-in link for an anonymous reader, when sign-in is on.
  private var signInLink: MustacheValue {
    guard case .site(offersSignIn: true) = limit else { return .null }
    return .string(AccountView.signInURL(returnTo: pageURL))
  }

  /// The no-JS page of this batch.
  private var pageURL: String { kind.pageURL(page: cursor.position / batchSize + 1, cursor: cursor) }

  /// Where a failed batch is asked for again.
  private var retry: MustacheValue {
    .object(["fragment": .string(kind.fragmentURL(cursor)), "href": .string(pageURL)])
  }
}

/// A `BatchView` as a template context, its cards built once.
private final class BatchObject: MustacheObject {
  let view: BatchView
  let cards: CardBatch

  init(_ view: BatchView) {
    self.view = view
    cards = view.cards
  }

  func value(for key: String) -> MustacheValue? { view.value(for: key, cards: cards) }
}

/// The trigger's `next`: the URLs are written only when the template reads them.
private final class NextLink: MustacheObject {
  let kind: ListKind
  let cursor: ListCursor
  let page: Int

  init(kind: ListKind, cursor: ListCursor, page: Int) {
    self.kind = kind
    self.cursor = cursor
    self.page = page
  }

  func value(for key: String) -> MustacheValue? {
    switch key {
    case "href": return .string(kind.pageURL(page: page, cursor: cursor))
    case "fragment": return .string(kind.fragmentURL(cursor))
    case "page": return .int(page)
    default: return nil
    }
  }
}
