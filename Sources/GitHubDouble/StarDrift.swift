/// Star counts that move while a client walks a list (the `starDrift` fault): before each search
/// answer, a few public repositories gain one to three stars or lose one, as real ones do while a
/// reader scrolls. The catalog itself never changes; the moved counts are kept here by repository
/// index, and search, its filters, its order and its items read them.
struct StarDrift {
  /// Current star counts that differ from the catalog's, by repository index.
  private(set) var moved: [Int: Int] = [:]
  /// Ids of every repository whose star count moved at least once (also if it moved back).
  private(set) var touched: Set<Int> = []

  /// Moves the stars of `count` public repositories drawn from `rng`: seven in ten gain 1–3, the
  /// others lose one (never below zero).
  mutating func step(count: Int, catalog: Catalog, rng: inout SplitMix64) {
    guard count > 0, catalog.publicCount > 0 else { return }
    for _ in 0..<count {
      let index = rng.below(catalog.publicCount)
      let before = moved[index] ?? catalog.columns.stars[index]
      let after = rng.chance(0.7) ? before + 1 + rng.below(3) : max(0, before - 1)
      guard after != before else { continue }
      moved[index] = after == catalog.columns.stars[index] ? nil : after
      touched.insert(catalog.columns.ids[index])
    }
  }
}
