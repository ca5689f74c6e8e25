import TestSupport
import Testing

/// Parent of every suite that drives Chromium: serialized so at most one browser runs at a time, and
/// disabled only by an explicit REPOSCROLL_SKIP_BROWSER=1 (a missing browser fails instead).
@Suite(
  "Browser", .serialized, .disabled(if: BrowserSession.skipRequested, "REPOSCROLL_SKIP_BROWSER=1"),
  .timeLimit(.minutes(20)))
enum BrowserSuites {}
