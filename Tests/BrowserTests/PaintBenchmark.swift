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

    /// REPOSCROLL_BENCH_BASE: a folder holding another `Public/` and `Templates/` (script/bench-paint
    /// --base REV puts a commit's there): the same binary serves them as the base, measured in the same
    /// session, interleaved with this tree's pages, so that both ratios come from the same load.
    static let baseFolder = ProcessInfo.processInfo.environment["REPOSCROLL_BENCH_BASE"].flatMap {
      $0.isEmpty ? nil : $0
    }

    /// The results page of `processes` scrolled to 80 rows, then one pass that also loads the
    /// avatars and histories of the cards it passes ("first pass", reported apart); returns its rate.
    private func open(_ session: BrowserSession, _ processes: AppProcesses) async throws -> Double {
      try await Reader.openSearch(session, processes)
      try await Reader.scroll(session, toRows: 80)
      return try await session.executeAsyncScript(Self.measure).double ?? 0
    }

    @Test(arguments: engines)
    func framesPerSecondWhileScrolling(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let session = try await pool.session(engine)
      let load = {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
          .joined(separator: " ") ?? "?"
      }
      if let base = Self.baseFolder {
        try await AppProcesses.with(
          doubleArguments: Reader.doubleArguments,
          appArguments: [
            "--batch-size", String(Reader.batchSize), "--public", base + "/Public", "--templates",
            base + "/Templates",
          ]
        ) { baseProcesses in
          // Rounds of plain, base, this tree: each page scrolled fresh, so that a slow moment of the
          // machine falls on all three.
          var plain: [Double] = []
          var before: [Double] = []
          var after: [Double] = []
          var first: [Double] = []
          for _ in 0..<3 {
            try await session.navigate(to: Self.plainPage)
            plain.append(try await session.executeAsyncScript(Self.measure).double ?? 0)
            first.append(try await open(session, baseProcesses))
            before.append(try await session.executeAsyncScript(Self.measure).double ?? 0)
            first.append(try await open(session, pool.processes))
            after.append(try await session.executeAsyncScript(Self.measure).double ?? 0)
          }
          let p = median(plain)
          print(
            "paint \(engine) \(session.browserVersion): plain \(p) fps, base \(median(before)) fps (ratio "
              + "\(String(format: "%.2f", median(before) / max(1, p)))), this tree \(median(after)) fps, ratio "
              + "\(String(format: "%.2f", median(after) / max(1, p))) (runs \(plain) / \(before) / \(after); "
              + "first passes \(first)), load \(load())")
          expectTrue(p > 0 && median(after) > 0)
        }
        return
      }
      try await session.navigate(to: Self.plainPage)
      var plain: [Double] = []
      for _ in 0..<3 { plain.append(try await session.executeAsyncScript(Self.measure).double ?? 0) }
      // The first pass over the results also loads the avatars and histories of the cards it passes,
      // while the app and the double answer on the same cores: it is reported apart, as "first pass",
      // and the median is of the passes after it, which measure the page's painting.
      let firstPass = try await open(session, pool.processes)
      var results: [Double] = []
      for _ in 0..<3 { results.append(try await session.executeAsyncScript(Self.measure).double ?? 0) }
      if ProcessInfo.processInfo.environment["REPOSCROLL_BENCH_VARIANTS"] == "1" {
        let variants = [
          ("no-animations", "*,*::before,*::after{animation:none!important}"),
          ("no-sparklines", ".spark{display:none!important}"),
          ("static-header", ".site-header{position:static!important}"),
          ("content-visibility-auto", ".card{content-visibility:auto}"),
          ("no-shadows", "*,*::before,*::after{box-shadow:none!important;text-shadow:none!important}"),
          ("no-radius", "*,*::before,*::after{border-radius:0!important}"),
          ("no-images", "img{visibility:hidden!important}"),
          ("no-transitions", "*,*::before,*::after{transition:none!important}"),
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
      print(
        "paint \(engine) \(session.browserVersion): plain \(median(plain)) fps, results \(median(results)) fps "
          + "(first pass \(firstPass)) "
          + "(runs \(plain) / \(results)), ratio \(String(format: "%.2f", median(results) / max(1, median(plain)))), load \(load())"
      )
      expectTrue(median(plain) > 0 && median(results) > 0)
    }
  }
}
