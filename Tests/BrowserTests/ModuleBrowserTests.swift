import Foundation
import TestSupport
import Testing

extension BrowserSuites {
  /// The page's ES modules one by one, in Chromium: a static server holds a copy of Public/*.js and a
  /// bare test page that imports every module (so their wiring finds no results page and stays idle);
  /// each test builds the markup it needs and drives a module's exported class or function.
  @Suite("Page modules in Chromium", .moduleFixture, .timeLimit(.minutes(5)))
  struct ModuleBrowserTests {
    /// A fresh test page with the modules loaded: `window.m.scroll`, `m.details`, `m.feed`,
    /// `m.localtime`, `m.motion`, `m.place`, `m.virtual`, `m.header`.
    func page() async throws -> BrowserSession {
      let fixture = try BrowserFixture.require()
      try await fixture.session.navigate(to: fixture.baseURL + "/modules.html")
      try await fixture.session.waitForScript(
        "window.m && document.body.dataset.ready", description: "the modules")
      return fixture.session
    }

    @Test func theSpeedEstimatorMeasuresOverWindowsWithAnInjectedClock() async throws {
      let session = try await page()
      let out = try await session.executeScript(
        """
        let t = 0;
        const s = new m.scroll.ScrollSpeed(() => t, { windowMs: 100, restMs: 250 });
        const at = (time, y) => { t = time; s.record(y); return s.downwards(); };
        return {
          first: at(0, 0),              // the first position after rest starts a window
          early: at(50, 50),            // not a window yet
          window: at(100, 100),         // 100 px in 100 ms
          inside: at(150, 200),         // unchanged until the next window ends
          faster: at(200, 400),         // 300 px in 100 ms
          up: at(300, 300),             // upwards counts as 0
          restFlag: (t = 600, s.atRest()),
          rest: s.downwards(),
          again: at(1400, 1000),        // after a rest (over 4 × restMs), a new window from here
          burst: at(1405, 1500),        // a bunch of events a few ms apart is not a burst
          later: at(1500, 1200),
          slowFrames: at(1800, 3000),   // one frame every 300 ms (over restMs): 1,800 px in 300 ms
          slowAgain: at(2100, 4800),
          setOff: (at(2800, 4800), at(3300, 4810)),  // 10 px after a 500 ms pause: about 0
        };
        """)
      expectEqual(out["first"]?.double, 0)
      expectEqual(out["early"]?.double, 0)
      expectEqual(out["window"]?.double, 1000)
      expectEqual(out["inside"]?.double, 1000)
      expectEqual(out["faster"]?.double, 3000)
      expectEqual(out["up"]?.double, 0)
      expectEqual(out["restFlag"]?.bool, true)
      expectEqual(out["rest"]?.double, 0)
      expectEqual(out["again"]?.double, 0)
      expectEqual(out["burst"]?.double, 0)
      expectEqual(out["later"]?.double, 2000)
      expectEqual(out["slowFrames"]?.double, 6000, "a browser painting 3 frames a second is not at rest")
      expectEqual(out["slowAgain"]?.double, 6000)
      expectTrue((out["setOff"]?.double ?? 100) < 25, "\(out)")
    }

    @Test func scrollTicksCoalesceEventsAndReportRest() async throws {
      let session = try await page()
      let out = try await session.executeAsyncScript(
        """
        const done = arguments[0];
        const target = new EventTarget();
        const ticks = new m.scroll.ScrollTicks(target, new m.scroll.ScrollSpeed(), 50);
        const seen = [];
        ticks.onTick((atRest) => {
          seen.push(atRest);
          if (atRest) done(seen);
        });
        for (let i = 0; i < 30; i++) target.dispatchEvent(new Event('scroll'));
        setTimeout(() => done(seen), 5000);
        """)
      // 30 events at once: one tick while scrolling, then one at rest.
      expectEqual(out.array?.compactMap(\.bool), [false, true])
    }

    @Test func theLookAheadIsCappedAt1500Pixels() async throws {
      let session = try await page()
      let out = try await session.executeScript(
        """
        const f = m.details.lookAhead;
        return [f(800, 0, true), f(800, 100, false), f(800, 1000, false), f(800, 50000, false),
                f(2000, 0, true), m.details.LIMITS.aheadMaxPx];
        """)
      // At rest one viewport; scrolling: half a viewport at least, 1.2 s of travel, never past 1,500 px.
      expectEqual(out.array?.compactMap(\.double), [800, 400, 1200, 1500, 1500, 1500])
    }

    @Test func nearCardsAreTheOnesInTheZoneNearestFirst() async throws {
      let session = try await page()
      let out = try await session.executeAsyncScript(
        """
        const done = arguments[0];
        const list = makeList(200, 100);
        scrollListTo(list, 5030);   // card 50 30 px above the viewport's top
        requestAnimationFrame(() => {
          const cards = Array.from(list.children);
          const h = innerHeight;
          const near = m.details.nearCards(cards, h, 300, 1000);
          done({ height: h, numbers: near.map((e) => Number(e.card.dataset.n)),
                 distances: near.map((e) => Math.round(e.distance)) });
        });
        """)
      let height = try #require(out["height"]?.double)
      let numbers = out["numbers"]?.array?.compactMap(\.int) ?? []
      let distances = out["distances"]?.array?.compactMap(\.int) ?? []
      // The zone: bottom more than 300 px below the viewport's top edge, top at most 1,000 px below its
      // lower edge; the distance is 0 on screen.
      var expected: [Int: Double] = [:]
      for number in 0..<200 {
        let top = Double(number * 100 - 5030)
        let bottom = top + 100
        guard bottom > -300, top - height <= 1000 else { continue }
        expected[number] = bottom < 0 ? -bottom : top > height ? top - height : 0
      }
      expectEqual(Set(numbers), Set(expected.keys), "\(numbers)")
      expectEqual(numbers.count, expected.count, "no card twice: \(numbers)")
      expectEqual(distances, expected.values.map { Int($0) }.sorted(), "nearest first: \(distances)")
      expectTrue(expected.keys.contains(47) && !expected.keys.contains(46), "the zone above is 300 px")
    }

    @Test func localTimeRewritesTimesNowAndWhenAdded() async throws {
      let session = try await page()
      let out = try await session.executeAsyncScript(
        """
        const done = arguments[0];
        document.body.insertAdjacentHTML('beforeend',
          '<div id="times"><p><time id="today" datetime="2026-11-25T12:00:00Z">12:00 UTC</time></p>' +
          '<p><time id="june" datetime="2026-06-10T12:00:00Z">Jun 10, 12:00 UTC</time></p>' +
          '<p class="card-facts">updated <time id="ago" datetime="2026-11-22T12:00:00Z">3 days ago</time></p>' +
          '<p><time id="bad" datetime="not a time">kept</time></p></div>');
        const local = new m.localtime.LocalTime('en-US');
        const now = new Date('2026-11-25T12:01:00Z');
        local.scan(document.getElementById('times'), now);
        const read = (id) => { const t = document.getElementById(id); return { text: t.textContent, title: t.title, local: t.dataset.local || '' }; };
        const result = { today: read('today'), june: read('june'), ago: read('ago'), bad: read('bad') };
        local.watch(document.getElementById('times'));
        document.getElementById('times').insertAdjacentHTML('beforeend', '<p><time id="late" datetime="2026-06-11T08:30:00Z">08:30 UTC</time></p>');
        setTimeout(() => { result.late = read('late'); done(result); }, 0);
        """)
      let today = out["today"]?["text"]?.string ?? ""
      expectTrue(
        today.range(of: #"^\d\d:\d\d(\s?[AP]M)?$"#, options: .regularExpression) != nil, "today: \(today)")
      expectEqual(out["today"]?["title"]?.string, "Wed, 25 Nov 2026 12:00:00 GMT")
      expectEqual(out["today"]?["local"]?.string, "2026-11-25T12:00:00Z")
      expectEqual(
        out["june"]?["text"]?.string?.hasPrefix("Jun 10"), true, "\(String(describing: out["june"]))")
      expectEqual(out["ago"]?["text"]?.string, "3 days ago")
      expectEqual(out["ago"]?["title"]?.string?.contains("2026"), true)
      expectEqual(out["bad"]?["text"]?.string, "kept", "an unreadable datetime stays as the server wrote it")
      expectEqual(
        out["late"]?["text"]?.string?.hasPrefix("Jun 11"), true, "\(String(describing: out["late"]))")
    }

    @Test func theFeedAppendsOnlyNewCardsAndAnnouncesThem() async throws {
      let session = try await page()
      let out = try await session.executeScript(
        """
        const card = (id, n) => '<article data-repo-id="' + id + '" aria-posinset="' + n + '" aria-setsize="3" tabindex="0">' + id + '</article>';
        document.body.insertAdjacentHTML('beforeend',
          '<div id="results" data-feed-label="Results"><div id="feed" role="feed">' + card('a', 1) + '</div>' +
          '<div id="feed-tail"><div class="tail">more</div></div></div>' +
          '<p id="feed-live" data-one="{count} more ({loaded} of {total})" data-many="{count} more ({loaded} of {total})"></p>');
        const feed = new m.feed.Feed(document.getElementById('results'));
        const events = [];
        document.addEventListener('reposcroll:cards', (e) => events.push(e.detail.cards.map((c) => c.dataset.repoId)));
        const first = feed.append(card('a', 1) + card('b', 2) + card('c', 3) + '<div class="tail"><p class="end">end</p></div>');
        const again = feed.append(card('b', 2) + card('c', 3) + '<div class="tail"><p class="end">end again</p></div>');
        return {
          first, again, events,
          ids: Array.from(document.querySelectorAll('#feed article')).map((a) => a.dataset.repoId),
          live: document.getElementById('feed-live').textContent,
          tail: document.getElementById('feed-tail').textContent,
          tails: document.querySelectorAll('#feed-tail').length,
        };
        """)
      expectEqual(out["first"]?.bool, true)
      expectEqual(out["again"]?.bool, false, "a batch of cards already shown adds nothing")
      expectEqual(out["ids"]?.array?.compactMap(\.string), ["a", "b", "c"])
      expectEqual(out["events"]?.array?.map { $0.array?.compactMap(\.string) ?? [] }, [["b", "c"]])
      expectEqual(out["live"]?.string, "2 more (3 of 3)")
      expectEqual(out["tail"]?.string, "end again", "the tail is the last fragment's")
      expectEqual(out["tails"]?.int, 1)
    }

    @Test func theFeedIsCreatedWithTheFirstCards() async throws {
      let session = try await page()
      let out = try await session.executeScript(
        """
        document.body.insertAdjacentHTML('beforeend',
          '<div id="results" data-feed-label="Search results"><div class="results-end"></div>' +
          '<div id="feed-tail"><div class="tail">error</div></div></div>');
        const feed = new m.feed.Feed(document.getElementById('results'));
        feed.append('<article data-repo-id="x" aria-posinset="1" aria-setsize="1">x</article><div class="tail">end</div>');
        const list = document.getElementById('feed');
        return { role: list && list.getAttribute('role'), label: list && list.getAttribute('aria-label'),
                 before: list && list.nextElementSibling && list.nextElementSibling.className,
                 cards: document.querySelectorAll('#feed article').length };
        """)
      expectEqual(out["role"]?.string, "feed")
      expectEqual(out["label"]?.string, "Search results")
      expectEqual(out["before"]?.string, "results-end")
      expectEqual(out["cards"]?.int, 1)
    }

    @Test func theTopCardIsFoundByBinarySearch() async throws {
      let session = try await page()
      let out = try await session.executeAsyncScript(
        """
        const done = arguments[0];
        const list = makeList(500, 50);
        scrollListTo(list, 50 * 321 + 20);   // card 321 (from 0) 20 px above the top
        requestAnimationFrame(() => {
          const cards = list.children;
          done([m.place.firstBelow(cards, 0), m.place.firstBelow(cards, 31), m.place.firstBelow(cards, 1e6),
                m.place.firstBelow([], 0)]);
        });
        """)
      expectEqual(out.array?.compactMap(\.int), [321, 322, -1, -1])
    }

    /// A virtual list of 1,000 rows in batches of 20 (cards 100 px tall, 8 px apart), with a cap of 60
    /// cards and 100 parked rows kept in memory; `load` answers a batch's URL with its cards.
    static let virtualList = """
      document.head.insertAdjacentHTML('beforeend', '<style>' +
        ':root { --card-h: 100px; --feed-gap: 8px; } #feed { display: flex; flex-direction: column; gap: var(--feed-gap); }' +
        '#feed article { height: var(--card-h); margin: 0; }' +
        '#feed { padding-top: calc(var(--above-rows, 0) * 108px); padding-bottom: calc(var(--below-rows, 0) * 108px); }</style>');
      document.body.insertAdjacentHTML('beforeend', '<div id="top" style="height:300px"></div><div id="feed" role="feed"></div><div id="below" style="height:2000px"></div>');
      const feed = document.getElementById('feed');
      const cards = (batch) => Array.from({ length: 20 }, (_, i) => batch * 20 + i + 1)
        .map((n) => '<article data-repo-id="r' + n + '" aria-posinset="' + n + '" aria-setsize="1000" tabindex="0">' + n + '</article>').join('');
      window.loads = [];
      const load = (url) => { window.loads.push(url); return Promise.resolve(cards(Number(url.split('/').pop()))); };
      const limits = { ...m.virtual.LIMITS, cap: 60, markupRows: 100 };
      const list = new m.virtual.VirtualList(() => feed, { limits, load });
      feed.insertAdjacentHTML('beforeend', cards(0));
      list.adopt(Array.from(feed.children));
      window.list = list;
      // Batches appended the way a reader scrolling down gets them: each one, then the reader at the end.
      window.grow = (from, to) => {
        for (let b = from; b < to; b++) {
          list.append(m.virtual.parse(cards(b)), '/batch/' + b);
          scrollTo(0, rowY(b * 20));
          list.update();
        }
      };
      // Every card in the document where its row says (108 px a row from the feed's top), and the count.
      window.check = () => {
        const top = feed.getBoundingClientRect().top;
        const live = Array.from(feed.querySelectorAll('article'));
        const misplaced = live.filter((a) => Math.abs(a.getBoundingClientRect().top - top - (Number(a.getAttribute('aria-posinset')) - 1) * 108) > 0.5)
          .map((a) => a.getAttribute('aria-posinset'));
        return { count: live.length, first: Number(live[0].getAttribute('aria-posinset')), misplaced,
                 height: Math.round(feed.getBoundingClientRect().height), markupRows: list.markupRows, rows: list.rows };
      };
      window.rowY = (n) => feed.getBoundingClientRect().top + scrollY + (n - 1) * 108;
      """

    @Test func theVirtualListKeepsTheCapAndEveryRowInItsPlace() async throws {
      let session = try await page()
      let out = try await session.executeAsyncScript(
        Self.virtualList + """
          const done = arguments[0];
          const seen = [];
          grow(1, 50);   // 1,000 rows
          seen.push(['grown', check(), window.loads.slice()]);
          const at = async (n) => {
            window.loads = [];
            scrollTo(0, rowY(n));
            await list.settle();
            seen.push([n, check(), window.loads.slice()]);
          };
          (async () => {
            for (const n of [990, 300, 600, 990, 700, 40, 1, 500, 980, 150]) await at(n);
            done(seen);
          })();
          """)
      let steps = out.array ?? []
      expectEqual(steps.count, 11, "\(out)")
      for step in steps {
        let label = step[0]?.description ?? "?"
        let check = step[1]
        expectTrue((check?["count"]?.int ?? 999) <= 60, "at \(label): \(String(describing: check))")
        expectEqual(check?["misplaced"]?.array?.isEmpty, true, "at \(label): \(String(describing: check))")
        expectEqual(
          check?["height"]?.int, 1000 * 108 - 8,
          "the feed is always as tall as its rows: \(String(describing: check))")
        expectTrue((check?["markupRows"]?.int ?? 999) <= 100, "at \(label): \(String(describing: check))")
        if let row = step[0]?.int {
          let first = check?["first"]?.int ?? 0
          expectTrue(
            first <= row && row < first + 60, "row \(row) is in the document: \(String(describing: check))")
        }
      }
      expectEqual(steps.first?[2]?.array?.isEmpty, true, "growing fetched nothing again: \(out)")
      // Far from the rows kept in memory, only the batches around the row are fetched again, by URL.
      let loads = steps.last?[2]?.array?.compactMap(\.string) ?? []
      expectTrue(!loads.isEmpty && loads.count <= 4, "only the batches near row 150 were fetched: \(loads)")
      expectTrue(loads.allSatisfy { $0.hasPrefix("/batch/") })
    }

    @Test func aParkedBatchComesBackAsItWasAndKeysMovePastTheDocument() async throws {
      let session = try await page()
      let out = try await session.executeAsyncScript(
        Self.virtualList + """
          const done = arguments[0];
          feed.querySelector('[aria-posinset="5"]').classList.add('in-view');
          feed.querySelector('[aria-posinset="5"]').dataset.note = 'kept';
          grow(1, 10);
          scrollTo(0, rowY(150)); list.update();
          const parked = !feed.querySelector('[aria-posinset="5"]');
          scrollTo(0, rowY(1)); list.update();
          const back = feed.querySelector('[aria-posinset="5"]');
          const kept = !!back && back.classList.contains('in-view') && back.dataset.note === 'kept';
          // The last card in the document, and the batch after it brought by bringBeside.
          const before = check();
          list.bringBeside(1).then((brought) => done({ parked, kept, brought, before, after: check() }));
          """)
      expectEqual(out["parked"]?.bool, true, "\(out)")
      expectEqual(out["kept"]?.bool, true, "the card came back with its class and data: \(out)")
      expectEqual(out["brought"]?.bool, true, "\(out)")
      let before = out["before"]?["count"]?.int ?? 0
      expectEqual((out["after"]?["count"]?.int ?? 0), before + 20, "\(out)")
      expectEqual(out["after"]?["misplaced"]?.array?.isEmpty, true, "\(out)")
    }

    @Test func savedPlacesFallBackToTheURLAndMakeRoomWhenStorageIsFull() async throws {
      let session = try await page()
      let out = try await session.executeScript(
        """
        // A storage of 2,000 characters in all.
        class Small {
          constructor() { this.items = new Map(); }
          size() { let n = 0; this.items.forEach((v, k) => { n += k.length + v.length; }); return n; }
          getItem(k) { return this.items.has(k) ? this.items.get(k) : null; }
          setItem(k, v) { const old = this.items.get(k); this.items.set(k, v); if (this.size() > 2000) { if (old === undefined) this.items.delete(k); else this.items.set(k, old); throw new Error('QuotaExceededError'); } }
          removeItem(k) { this.items.delete(k); }
        }
        const storage = new Small();
        let url = 'http://x/?q=a';
        const places = (u) => new m.place.SavedPlaces(storage, () => u);
        history.replaceState(null, '');
        const a = places(url);
        a.begin();
        a.saveList([[null, 20], ['/f?after=20', 20]], '<div class="tail">next</div>');
        a.save({ rows: 40, top: 31, offset: -12, y: 3700 });
        const exact = places(url).read();
        // history.state lost (WebKit without its page cache): the URL's last key finds the place.
        history.replaceState(null, '');
        const fallback = places(url).read();
        const other = places('http://x/?q=b').read();
        // Lists of other entries fill the storage; the current one is still written, the oldest go.
        for (let i = 0; i < 12; i++) {
          const p = places('http://x/?q=' + i);
          p.begin();
          p.saveList(Array.from({ length: 8 }, (_, j) => ['/f?q=' + i + '&after=' + j * 20, 20]), '<p>t</p>');
          p.save({ rows: 160, top: 100, offset: 0, y: 12000 });
        }
        const last = places('http://x/?q=11').read();
        return { exact, fallback, other, last: last && last.top, size: storage.size() };
        """)
      expectTrue(out["exact"]?["top"]?.int == 31 && out["exact"]?["offset"]?.int == -12, "\(out)")
      expectEqual(out["exact"]?["batches"]?.array?.count, 2, "\(out)")
      expectEqual(out["fallback"]?["top"]?.int, 31, "found by the URL's last key: \(out)")
      expectEqual(out["fallback"]?["tail"]?.string, "<div class=\"tail\">next</div>", "\(out)")
      expectEqual(out["other"]?.isNull, true, "another URL has no place: \(out)")
      expectEqual(out["last"]?.int, 100, "the newest list was written: \(out)")
      expectTrue((out["size"]?.int ?? 9999) <= 2000)
    }

    @Test func theHeaderGoesAwayDownComesBackUpAndStaysForFocus() async throws {
      let session = try await page()
      let out = try await session.executeScript(
        """
        document.body.insertAdjacentHTML('beforeend', '<header class="site-header" style="height:60px"><input id="hq"></header><div style="height:9000px"></div>');
        const element = document.querySelector('.site-header');
        const h = new m.header.SlidingHeader(element, { reducedMotion: () => true });
        const states = [];
        const at = (y) => { scrollTo(0, y); h.scrolled(y); states.push(element.dataset.header); };
        at(30); at(400); at(390); at(1000); at(990); at(0); at(2000);
        element.querySelector('#hq').focus({ preventScroll: true });
        states.push(element.dataset.header);
        at(2500);
        states.push(element.dataset.header);
        return states;
        """)
      // Near the top it stays in the flow; a scroll up of 6 px or more past it pins it; down sends it
      // away (at once with reduced motion); at the top it is back in the flow; focus pins it and keeps it.
      expectEqual(
        out.array?.compactMap(\.string),
        ["flow", "flow", "shown", "flow", "shown", "flow", "flow", "shown", "shown", "shown"], "\(out)")
    }

    /// A slide out whose transition never runs (this page has no CSS, so no `transitionend`) still ends:
    /// the header does not stay `hiding`, which the browser suites once waited on until their timeout.
    @Test func aSlideOutWithoutItsTransitionStillEnds() async throws {
      let session = try await page()
      let out = try await session.executeAsyncScript(
        """
        const done = arguments[0];
        document.body.insertAdjacentHTML('beforeend', '<header class="site-header" style="height:60px"></header><div style="height:9000px"></div>');
        const element = document.querySelector('.site-header');
        const h = new m.header.SlidingHeader(element, { reducedMotion: () => false });
        const at = (y) => { scrollTo(0, y); h.scrolled(y); return element.dataset.header; };
        const states = [at(400), at(390), at(1000)];
        setTimeout(() => done({ states, after: element.dataset.header }), m.header.HIDE_FALLBACK_MS + 300);
        """)
      expectEqual(out["states"]?.array?.compactMap(\.string), ["flow", "shown", "hiding"], "\(out)")
      expectEqual(out["after"]?.string, "flow", "away from the top, the header went back in the flow: \(out)")
    }

    @Test func motionRevealsEachCardOnceAndStopsWatchingIt() async throws {
      let session = try await page()
      let out = try await session.executeAsyncScript(
        """
        const done = arguments[0];
        const watched = new Set();
        let callback = null;
        // A recording observer: what is watched, and a hand to deliver entries.
        class Recorder {
          constructor(cb) { callback = cb; }
          observe(el) { watched.add(el); }
          unobserve(el) { watched.delete(el); }
        }
        const cards = [1, 2, 3].map(() => document.createElement('article'));
        cards[2].classList.add('in-view');
        const reveal = new m.motion.Reveal(Recorder);
        reveal.watch(cards);
        const watchedAtFirst = watched.size;
        callback([{ target: cards[0], isIntersecting: true }, { target: cards[1], isIntersecting: false }]);
        callback([{ target: cards[0], isIntersecting: false }]);
        done({ watchedAtFirst, watchedAfter: watched.size, stillWatched: watched.has(cards[1]),
               classes: cards.map((c) => c.classList.contains('in-view')) });
        """)
      expectEqual(out["watchedAtFirst"]?.int, 2, "a card already revealed is not watched")
      expectEqual(out["watchedAfter"]?.int, 1, "a revealed card is no longer watched")
      expectEqual(out["stillWatched"]?.bool, true)
      expectEqual(out["classes"]?.array?.compactMap(\.bool), [true, false, true], "leaving keeps the class")
    }

    @Test func motionRevealsCardsInTheViewportWithTheRealObserver() async throws {
      let session = try await page()
      try await session.executeScript(
        """
        const list = makeList(100, 100);
        scrollTo(0, 0);
        new m.motion.Reveal().watch(Array.from(list.children));
        """)
      try await session.waitForScript(
        "document.querySelector('#list article').classList.contains('in-view')",
        description: "the first card revealed")
      let far = try await session.executeScript(
        "return document.querySelector('#list article:last-child').classList.contains('in-view');")
      expectEqual(far.bool, false, "a card far below is not revealed")
    }
  }
}

/// The pages `ModuleBrowserTests` load: a copy of Public/*.js and a test page importing every module.
enum ModulePages {
  /// Imports every page module and exposes them as `window.m`.
  static let testPage = """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><title>Module tests</title>
    <style>body{margin:0;font:16px sans-serif}</style>
    <script type="module" src="modules-test.js"></script>
    </head><body></body></html>
    """

  static let testScript = """
    import * as scroll from './scroll.js';
    import * as details from './details.js';
    import * as feed from './feed.js';
    import * as localtime from './localtime.js';
    import * as motion from './motion.js';
    import * as place from './place.js';
    import * as virtual from './virtual.js';
    import * as header from './header.js';
    window.m = { scroll, details, feed, localtime, motion, place, virtual, header };
    // A list of `count` bare cards `height` px tall, each numbered in data-n.
    window.makeList = (count, height) => {
      document.body.insertAdjacentHTML('beforeend', '<div id="list"></div>');
      const list = document.getElementById('list');
      for (let i = 0; i < count; i++) {
        const card = document.createElement('article');
        card.style.cssText = `display:block;height:${height}px;margin:0`;
        card.dataset.n = String(i);
        list.appendChild(card);
      }
      return list;
    };
    // Scrolls the page so that `y` px into `list` is at the viewport's top.
    window.scrollListTo = (list, y) => scrollTo(0, list.getBoundingClientRect().top + scrollY + y);
    document.body.dataset.ready = 'yes';
    """
}

extension ModulePages {
  /// Writes the modules and the test page into a new folder and returns its path.
  static func write() throws -> String {
    let publicFolder = try ProcessRunner.packageRoot() + "/Public"
    var files = ["modules.html": testPage, "modules-test.js": testScript]
    for name in try FileManager.default.contentsOfDirectory(atPath: publicFolder) where name.hasSuffix(".js")
    {
      files[name] = try String(contentsOfFile: publicFolder + "/" + name, encoding: .utf8)
    }
    return try FixturePages.folder(files)
  }
}
