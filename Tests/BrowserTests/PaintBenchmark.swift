import Foundation
import TestSupport
import Testing

extension BrowserSuites {
  /// Frames per second while a script scrolls the results page, against a plain text page in the same
  /// session: the benchmark behind script/bench-paint (REPOSCROLL_BENCH_PAINT=1), not a regular test.
  @Suite(
    "Paint benchmark", .engineFixture, .timeLimit(.minutes(10)),
    .enabled(
      if: ProcessInfo.processInfo.environment["REPOSCROLL_BENCH_PAINT"] == "1", "script/bench-paint runs it"))
  struct PaintBenchmark {
    /// Scrolls down at 1,000 px/s for 3 s, one step per animation frame, and returns frames per second.
    static let measure = """
      const done = arguments[0];
      const speed = 1000, duration = 3000;
      window.scrollTo(0, 0);
      requestAnimationFrame((first) => {
        let frames = 0, last = first;
        const step = (now) => {
          frames += 1;
          window.scrollTo(0, speed * (now - first) / 1000);
          last = now;
          if (now - first < duration) requestAnimationFrame(step);
          else done(Math.round(frames * 10000 / (last - first)) / 10);
        };
        requestAnimationFrame(step);
      });
      """

    /// A long page of plain paragraphs.
    static let plainPage =
      "data:text/html;charset=utf-8,<!doctype html><meta name=viewport content='width=device-width'><title>plain</title>"
      + String(
        repeating: "<p>Plain text, no styles: the reference for this window's frame rate.</p>", count: 600)

    private func median(_ runs: [Double]) -> Double { runs.sorted()[runs.count / 2] }

    /// REPOSCROLL_BENCH_ENGINES (e.g. "webkit" or "chromium,firefox") limits the run to those engines.
    static let engines: [BrowserEngine] = {
      let wanted = ProcessInfo.processInfo.environment["REPOSCROLL_BENCH_ENGINES"] ?? ""
      let names = wanted.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
      let chosen = BrowserEngine.allCases.filter { names.contains($0.rawValue) }
      return chosen.isEmpty ? BrowserEngine.allCases : chosen
    }()

    @Test(arguments: engines)
    func framesPerSecondWhileScrolling(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let session = try await pool.session(engine)
      try await session.navigate(to: Self.plainPage)
      var plain: [Double] = []
      for _ in 0..<3 { plain.append(try await session.executeAsyncScript(Self.measure).double ?? 0) }
      try await Reader.openSearch(session, pool.processes)
      try await Reader.scroll(session, toRows: 80)
      // The first pass over the results also loads the avatars and histories of the cards it passes,
      // while the app and the double answer on the same cores: it is reported apart, as "first pass",
      // and the median is of the passes after it, which measure the page's painting.
      let firstPass = try await session.executeAsyncScript(Self.measure).double ?? 0
      var results: [Double] = []
      for _ in 0..<3 { results.append(try await session.executeAsyncScript(Self.measure).double ?? 0) }
      if ProcessInfo.processInfo.environment["REPOSCROLL_BENCH_VARIANTS"] == "1" {
        let variants = [
          ("no-animations", "*,*::before,*::after{animation:none!important}"),
          ("no-sparklines", ".spark{display:none!important}"),
          ("static-header", ".site-header{position:static!important}"),
          ("content-visibility-auto", ".card{content-visibility:auto}"),
        ]
        for (name, css) in variants {
          try await session.executeScript(
            "const s = new CSSStyleSheet(); s.replaceSync(arguments[0]); document.adoptedStyleSheets = [s];",
            args: [.string(css)])
          var runs: [Double] = []
          for _ in 0..<2 { runs.append(try await session.executeAsyncScript(Self.measure).double ?? 0) }
          print("variant \(engine) \(name): \(runs)")
        }
        try await session.executeScript("document.adoptedStyleSheets = [];")
      }
      let load =
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
        .joined(separator: " ") ?? "?"
      print(
        "paint \(engine) \(session.browserVersion): plain \(median(plain)) fps, results \(median(results)) fps "
          + "(first pass \(firstPass)) "
          + "(runs \(plain) / \(results)), ratio \(String(format: "%.2f", median(results) / max(1, median(plain)))), load \(load)"
      )
      #expect(median(plain) > 0 && median(results) > 0)
    }
  }
}
