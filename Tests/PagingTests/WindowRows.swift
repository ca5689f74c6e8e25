import Paging
import Synchronization

/// A row with a sort key and a creation time.
struct KeyedRow: Identifiable, Sendable, Equatable {
  let id: Int
  var key: Int
  let created: Int
}

/// A GitHub-like window source over rows in memory: each window is answered with its rows in the
/// list's order (key, then id), a page at a time, with their count; `drift` moves keys between reads,
/// as stars move on GitHub while a reader scrolls. Pages are cached as the GitHub client caches them
/// (`reads` lists the upstream reads only).
final class WindowRows: WindowSource, Sendable {
  struct State {
    var rows: [KeyedRow]
    var reads: [KeyWindow] = []
    var generator: Mix
    /// Ids whose key moved at least once.
    var moved: Set<Int> = []
    /// Pages already answered, as a caching client keeps them: each is read upstream once.
    var cache: [Page: SourcePage<KeyedRow>] = [:]
  }

  struct Page: Hashable {
    let window: KeyWindow
    let number: Int
  }

  let state: Mutex<State>
  let descending: Bool
  let keysVisible: Bool
  /// Rows whose key moves before each read (0: none).
  let drift: Int
  var pageSize: Int { 100 }
  var resultCap: Int { 1000 }
  var keys: ClosedRange<Int> { 0...1_000_000_000 }

  init(_ rows: [KeyedRow], descending: Bool, keysVisible: Bool = true, drift: Int = 0, seed: UInt64 = 1) {
    state = Mutex(State(rows: rows, generator: Mix(state: seed)))
    self.descending = descending
    self.keysVisible = keysVisible
    self.drift = drift
  }

  /// A catalog like GitHub's stars: a large bucket at 0, smaller ones above, a long sparse tail;
  /// creation times spread over 2010–2025, newer ones more frequent.
  static func catalog(count: Int, seed: UInt64 = 7) -> [KeyedRow] {
    var generator = Mix(state: seed)
    return (0..<count).map { index in
      let u = Double(generator.next() % 1_000_000) / 1_000_000
      let x = 1 / max(1e-6, 1 - u)
      let key = u < 0.35 ? 0 : Int(x * x.squareRoot()) - 1
      let f = Double(generator.next() % 1_000_000) / 1_000_000
      let created = 1_262_304_000 + Int(Double(473_040_000) * (1 - (1 - f) * (1 - f)))
      return KeyedRow(id: 10_000 + index * 7, key: min(key, 500_000), created: created)
    }
  }

  /// The rows in the list's order now: the enumeration a walk must equal.
  var ordered: [KeyedRow] { state.withLock { Self.order($0.rows, descending: descending) } }

  /// Every window read upstream, in order.
  var reads: [KeyWindow] { state.withLock { $0.reads } }

  /// Ids whose key moved.
  var moved: Set<Int> { state.withLock { $0.moved } }

  static func order(_ rows: [KeyedRow], descending: Bool) -> [KeyedRow] {
    rows.sorted { a, b in
      if a.key != b.key { return descending ? a.key > b.key : a.key < b.key }
      return a.id < b.id
    }
  }

  func fetch(_ window: KeyWindow, page: Int, reload: Bool) async throws -> SourcePage<KeyedRow> {
    state.withLock { state in
      if !reload, let cached = state.cache[Page(window: window, number: page)] { return cached }
      for _ in 0..<drift {
        let index = Int(state.generator.next() % UInt64(state.rows.count))
        let up = state.generator.next() % 10 < 7
        let step = up ? 1 + Int(state.generator.next() % 3) : -1
        let moved = max(0, state.rows[index].key + step)
        if moved != state.rows[index].key {
          state.rows[index].key = moved
          state.moved.insert(state.rows[index].id)
        }
      }
      state.reads.append(window)
      let matching = Self.order(
        state.rows.filter { row in
          window.keys.contains(row.key) && (window.slice?.contains(row.created) ?? true)
        }, descending: descending)
      let start = (page - 1) * pageSize
      let items =
        start < min(matching.count, resultCap)
        ? Array(matching[start..<min(start + pageSize, matching.count)]) : []
      let answer = SourcePage(items: items, totalCount: matching.count, resultCap: resultCap)
      state.cache[Page(window: window, number: page)] = answer
      return answer
    }
  }

  func key(of item: KeyedRow) -> Int { item.key }
  func created(of item: KeyedRow) -> Int { item.created }
}

/// SplitMix64, so the catalogs and drifts are the same on every run.
struct Mix: Sendable {
  var state: UInt64

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
