import Foundation
import TestSupport
import Testing

extension BrowserSuites {
  /// The WebDriver client against static fixture pages in one shared Chromium session.
  @Suite("WebDriver client", .browserFixture, .timeLimit(.minutes(10)))
  struct WebDriverClientTests {
    @Test func chromiumAndChromedriverAreInstalled() {
      expectTrue(BrowserSession.isAvailable, "install chromium and chromium-driver (script/test does)")
    }

    @Test func navigatesAndReadsElements() async throws {
      let fixture = try BrowserFixture.require()
      let session = fixture.session
      try await session.navigate(to: fixture.baseURL + "/index.html")
      try await expectEqual(session.currentURL(), fixture.baseURL + "/index.html")
      try await expectEqual(session.title(), "Fixture index")
      let title = try #require(try await session.findElement(css: "#title"))
      try await expectEqual(session.text(of: title), "WebDriver fixture")
      let items = try await session.findElements(css: "li.item")
      expectEqual(items.count, 3)
      var ids: [String?] = []
      for item in items { ids.append(try await session.attribute("data-id", of: item)) }
      expectEqual(ids, ["1", "2", "3"])
      try await expectEqual(session.attribute("data-missing", of: items[0]), nil)
      expectTrue(try await session.findElements(css: ".does-not-exist").isEmpty)
      let next = try #require(try await session.findElement(css: "a[rel=next]"))
      try await expectEqual(session.property("href", of: next).string, fixture.baseURL + "/page2.html")
    }

    @Test func executesSyncAndAsyncScripts() async throws {
      let fixture = try BrowserFixture.require()
      let session = fixture.session
      try await session.navigate(to: fixture.baseURL + "/index.html")
      let sum = try await session.executeScript("return arguments[0] + arguments[1];", args: [40, 2])
      expectEqual(sum.int, 42)
      let object = try await session.executeScript(
        "return {s: 'text', b: true, n: null, a: [1, 2.5], w: innerWidth, h: innerHeight};")
      expectEqual(object["s"]?.string, "text")
      expectEqual(object["b"]?.bool, true)
      expectEqual(object["n"]?.isNull, true)
      expectEqual(object["a"], [1, 2.5])
      expectEqual(object["w"]?.int, 1280)
      expectTrue((object["h"]?.int ?? 0) > 600)
      let items = try await session.findElements(css: "li.item")
      let text = try await session.executeScript("return arguments[0].textContent;", args: [items[1].json])
      expectEqual(text.string, "two")
      let element = try await session.executeScript("return document.getElementById('title');")
      expectTrue(WebDriverElement(json: element) != nil)
      let later = try await session.executeAsyncScript(
        "const done = arguments[arguments.length - 1]; setTimeout(() => done('after ' + arguments[0]), 50);",
        args: ["timeout"])
      expectEqual(later.string, "after timeout")
    }

    @Test func reportsW3CErrorsWithTheirCode() async throws {
      let fixture = try BrowserFixture.require()
      let session = fixture.session
      try await session.navigate(to: fixture.baseURL + "/index.html")
      do {
        try await session.executeScript("throw new Error('deliberate');")
        Issue.record("a throwing script must fail")
      } catch let error as WebDriverError {
        expectEqual(error.errorCode, "javascript error")
        expectTrue(error.description.contains("deliberate"))
      }
      do {
        _ = try await session.text(of: WebDriverElement(id: "no-such-id"))
        Issue.record("an unknown element must fail")
      } catch let error as WebDriverError {
        expectEqual(error.errorCode, "no such element")
      }
    }

    @Test func clicksAndTypes() async throws {
      let fixture = try BrowserFixture.require()
      let session = fixture.session
      try await session.navigate(to: fixture.baseURL + "/index.html")
      let button = try #require(try await session.findElement(css: "#button"))
      try await session.click(button)
      try await expectEqual(session.text(of: button), "Clicked")
      let input = try #require(try await session.findElement(css: "#name"))
      try await session.sendKeys("héllo", to: input)
      try await expectEqual(session.property("value", of: input).string, "héllo")
      let next = try #require(try await session.findElement(css: "#next"))
      try await session.click(next)
      try await session.waitForScript("document.title === 'Fixture page 2'")
      try await expectEqual(session.currentURL(), fixture.baseURL + "/page2.html")
    }

    @Test func scrollingFiresIntersectionObserverAndPageDownScrolls() async throws {
      let fixture = try BrowserFixture.require()
      let session = fixture.session
      try await session.navigate(to: fixture.baseURL + "/index.html")
      let sentinel = try #require(try await session.findElement(css: "#sentinel"))
      try await expectEqual(session.attribute("data-seen", of: sentinel), "no")
      try await expectEqual(session.executeScript("return window.scrollY;").int, 0)

      try await session.executeScript("document.activeElement && document.activeElement.blur();")
      try await session.pressKeys(WebDriverKey.pageDown)
      // Page Down scrolls smoothly, so wait for the animation to pass 300 px rather than its first frame.
      let afterPageDown = try await session.waitForScript("window.scrollY > 300 && window.scrollY")
      expectTrue((afterPageDown.int ?? 0) > 300)
      try await expectEqual(session.attribute("data-seen", of: sentinel), "no")
      let body = try #require(try await session.findElement(css: "body"))
      try await session.sendKeys(WebDriverKey.pageDown, to: body)
      let firstY = afterPageDown.int ?? 0
      try await session.waitForScript(
        "window.scrollY > \(firstY)", description: "sendKeys Page Down scrolls further")

      for _ in 0..<10 { try await session.executeScript("window.scrollBy(0, 500);") }
      try await waitUntil("the sentinel's IntersectionObserver callback") {
        try await session.attribute("data-seen", of: sentinel) == "yes"
      }
      try await expectEqual(session.executeScript("return window.__sentinelCallbacks;").int, 1)
    }

    @Test func pageProbeRecordsLayoutShiftsAndLongTasksAcrossReloads() async throws {
      let fixture = try BrowserFixture.require()
      let session = fixture.session
      try await session.navigate(to: fixture.baseURL + "/index.html")
      let still = try await session.pageProbe()
      expectEqual(still.cumulativeLayoutShift, 0)
      expectTrue(still.consoleErrors.isEmpty)

      try await session.navigate(to: fixture.baseURL + "/shift.html")
      try await session.waitForScript("document.body.dataset.done === 'yes'")
      let probe = try await waitForValue("a layout shift and a long task recorded") {
        let probe = try await session.pageProbe()
        return probe.layoutShiftCount > 0 && !probe.longTaskDurations.isEmpty ? probe : nil
      }
      expectTrue(probe.cumulativeLayoutShift > 0.01)
      expectTrue(probe.longTaskDurations.contains { $0 >= 100 })

      try await session.refresh()
      let reloaded = try await session.pageProbe()
      expectTrue(reloaded.layoutShiftCount == 0 || reloaded.layoutShiftCount <= probe.layoutShiftCount)
      try await session.waitForScript("document.body.dataset.done === 'yes'")
      try await waitUntil("probe active again after reload") {
        try await session.pageProbe().layoutShiftCount > 0
      }
    }

    @Test func consoleErrorsAreReported() async throws {
      let fixture = try BrowserFixture.require()
      let session = fixture.session
      _ = try await session.browserLogs()
      try await session.navigate(to: fixture.baseURL + "/errors.html")
      try await session.waitForScript("document.body.dataset.done === 'yes'")
      let errors = try await waitForValue("both errors in the probe") {
        let errors = try await session.pageProbe().consoleErrors
        return errors.count >= 2 ? errors : nil
      }
      expectTrue(errors.contains("fixture console error"))
      expectTrue(errors.contains { $0.contains("undefinedFunctionForFixture") })
      let logs = try await session.browserLogs().filter(\.isError)
      expectTrue(logs.contains { $0.source == "console-api" && $0.message.contains("fixture console error") })
      expectTrue(
        logs.contains { $0.source == "javascript" && $0.message.contains("undefinedFunctionForFixture") })
      expectTrue(try await session.browserLogs().isEmpty, "se/log drains the buffer")
    }

    @Test func screenshotIsAPNGOfTheViewport() async throws {
      let fixture = try BrowserFixture.require()
      let session = fixture.session
      try await session.navigate(to: fixture.baseURL + "/index.html")
      let png = try await session.screenshot()
      expectTrue(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
      try #require(png.count > 24)
      // IHDR holds the width as a big-endian UInt32 at offset 16.
      let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
      expectEqual(width, 1280)
    }

    @Test func backAndRefresh() async throws {
      let fixture = try BrowserFixture.require()
      let session = fixture.session
      try await session.navigate(to: fixture.baseURL + "/index.html")
      try await session.executeScript("window.__marker = 'set';")
      try await session.navigate(to: fixture.baseURL + "/page2.html")
      try await session.back()
      try await expectEqual(session.currentURL(), fixture.baseURL + "/index.html")
      try await session.refresh()
      try await expectEqual(session.currentURL(), fixture.baseURL + "/index.html")
      expectTrue(try await session.executeScript("return window.__marker || null;").isNull)
    }

    @Test func devToolsCommandsEmulateMediaFeatures() async throws {
      let fixture = try BrowserFixture.require()
      let session = fixture.session
      try await session.navigate(to: fixture.baseURL + "/index.html")
      let query = "return matchMedia('(prefers-reduced-motion: reduce)').matches;"
      try await expectEqual(session.executeScript(query).bool, false)
      try await session.cdp(
        "Emulation.setEmulatedMedia", ["features": [["name": "prefers-reduced-motion", "value": "reduce"]]])
      try await expectEqual(session.executeScript(query).bool, true)
      try await session.cdp("Emulation.setEmulatedMedia", ["features": []])
      try await expectEqual(session.executeScript(query).bool, false)
      let version = try await session.cdp("Browser.getVersion")
      expectEqual(version["product"]?.string?.hasPrefix("Chrome/"), true)
    }
  }
}
