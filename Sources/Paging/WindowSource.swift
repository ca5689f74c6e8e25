/// An upstream that can read a list by windows of its sort key (`KeysetList`), past any result cap:
/// GitHub search with a `stars:` range and a `created:` slice added to the query.
///
/// `fetch` answers one window with its rows in the list's order, `pageSize` at most a page, and the
/// number of rows the window holds as `totalCount`. Pages after the first are only asked for inside a
/// one-second tie slice that holds more than a page (nothing can narrow it further).
public protocol WindowSource: Sendable {
  /// The element type; ids de-duplicate items across windows.
  associatedtype Item: Identifiable & Sendable where Item.ID: Sendable
  /// Rows per page (GitHub search: 100).
  var pageSize: Int { get }
  /// Most rows one window query hands out (GitHub: 1,000).
  var resultCap: Int { get }
  /// True when the list runs from the largest key down.
  var descending: Bool { get }
  /// The smallest and largest keys a row can have (stars: 0…): the walk ends past them.
  var keys: ClosedRange<Int> { get }
  /// Whether `key(of:)` tells an item's key. When it does not (GitHub's help-wanted issues), windows
  /// are key ranges sized from the counts reads report, each listed whole.
  var keysVisible: Bool { get }
  /// Page `page` (1-based) of the rows of `window` in the list's order; `reload` bypasses caches.
  func fetch(_ window: KeyWindow, page: Int, reload: Bool) async throws -> SourcePage<Item>
  /// The sort key of an item (not called when `keysVisible` is false).
  func key(of item: Item) -> Int
  /// The creation time of an item, in Unix seconds (the tie buckets' slicing key).
  func created(of item: Item) -> Int
  /// `key(of:)` of each of `items`, in order. A list reads a page's keys in one call: `KeysetList` is
  /// not specialised for a source of another module, and a call per row copied each row generically.
  func keys(of items: [Item]) -> [Int]
  /// `created(of:)` of each of `items`, in order (one call a page, as `keys(of:)`).
  func createdTimes(of items: [Item]) -> [Int]
  /// A number taken from each page read, whose largest value a batch reports (`ListBatch.peak`).
  func peak(of page: SourcePage<Item>) -> Int
}

extension WindowSource {
  /// `key(of:)` row by row.
  public func keys(of items: [Item]) -> [Int] { items.map { key(of: $0) } }

  /// `created(of:)` row by row.
  public func createdTimes(of items: [Item]) -> [Int] { items.map { created(of: $0) } }

  /// 0: nothing measured.
  public func peak(of page: SourcePage<Item>) -> Int { 0 }
}
