import GitHub
import HTTP
import HTTPServer
import SharedStore
import Synchronization

/// What operators and balancers read: `GET /metrics` and `GET /healthz`.
struct OpsHandler: Sendable {
  /// Requests by route and status (the pipeline counts them).
  let requests: Metrics
  /// When the process started, for `process_start_time_seconds`.
  let processMetrics: ProcessMetrics
  let readAhead: ReadAhead
  let warming: Warming
  let client: GitHubClient
  /// The store shared with other instances, if any.
  let sharedStore: (any SharedStore)?
  /// Set when shutdown begins: `/healthz` answers 503 so balancers stop sending here.
  let draining: Draining
  /// Unix seconds now.
  let now: @Sendable () -> Int
  /// Sign-in's refreshes, revocations and refusals; nil when sign-in is off.
  var signIn: SignInMetrics? = nil

  /// `GET /metrics`: requests by route and status, in flight, upstream calls by endpoint and status,
  /// cache counters and rate-limit remaining by resource, in Prometheus text format.
  func metrics(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
    var out = MetricsText()
    out.family("reposcroll_build_info", .gauge, "The running version and commit (always 1).")
    out.sample(
      "reposcroll_build_info",
      labels:
        "version=\"\(Self.label(BuildInfo.version, extra: "."))\",commit=\"\(Self.label(BuildInfo.commit, extra: "-"))\"",
      1)
    processMetrics.render(into: &out)
    requests.render(into: &out)
    readAhead.render(into: &out)
    warming.render(into: &out)
    signIn?.render(into: &out)
    let github = await client.metrics()
    out.family(
      "reposcroll_upstream_calls_total", .counter, "Calls to GitHub, by endpoint and status (0: no answer).")
    for endpoint in GitHubEndpoint.allCases {
      for (status, count) in (github.upstreamCalls[endpoint] ?? [:]).sorted(by: { $0.key < $1.key }) {
        out.sample(
          "reposcroll_upstream_calls_total", labels: "endpoint=\"\(endpoint.rawValue)\",status=\"\(status)\"",
          count)
      }
    }
    out.family(
      "reposcroll_upstream_items_skipped_total", .counter,
      "Malformed items or weeks left out of GitHub answers.")
    for endpoint in GitHubEndpoint.allCases {
      guard let count = github.itemsSkipped[endpoint] else { continue }
      out.sample(
        "reposcroll_upstream_items_skipped_total", labels: "endpoint=\"\(endpoint.rawValue)\"", count)
    }
    let counters: [(String, String, Int)] = [
      ("upstream_cache_hits_total", "Answers from a fresh cache entry.", github.cacheHits),
      (
        "upstream_cache_misses_total", "Requests that needed GitHub (or were refused locally).",
        github.cacheMisses
      ),
      ("upstream_coalesced_total", "Requests that joined an identical one in flight.", github.coalesced),
      ("upstream_revalidated_total", "Expired entries confirmed by a 304.", github.revalidated),
      ("upstream_stale_served_total", "Expired entries served because GitHub failed.", github.staleServed),
      (
        "upstream_rate_limited_locally_total", "Requests refused locally for an exhausted limit.",
        github.rateLimitedLocally
      ),
      (
        "upstream_cancelled_total", "Calls to GitHub cancelled because every client waiting for them left.",
        github.cancelledUpstream
      ),
      (
        "private_items_withheld_total",
        "Non-public items left out of anonymous readers' answers, and star histories of non-public "
          + "repositories refused to them.",
        github.privateWithheld
      ),
      (
        "upstream_own_answers_total",
        "Answers kept as their reader's own, in this process's memory only (they held a non-public item).",
        github.ownAnswers
      ),
    ]
    for (name, help, value) in counters { out.single("reposcroll_" + name, .counter, help, value) }
    out.single(
      "reposcroll_github_token_may_see_private", .gauge,
      "1 when the server's GitHub token may see private repositories (repo scope, no scopes, or not checked).",
      client.serverTokenMaySeePrivate ? 1 : 0)
    out.single(
      "reposcroll_cache_bytes", .gauge, "Bytes held by the GitHub response cache.", github.cacheBytes)
    out.single(
      "reposcroll_cache_entries", .gauge, "Entries in the GitHub response cache.", github.cacheEntries)
    let shared: [(String, String, Int)] = [
      ("shared_hits_total", "Answers taken from a value another instance stored.", github.sharedHits),
      (
        "shared_waits_total", "Requests that waited for another instance's upstream call.", github.sharedWaits
      ),
      (
        "shared_rejected_total", "Shared values refused as malformed or foreign (misses).",
        github.sharedRejected
      ),
    ]
    for (name, help, value) in shared { out.single("reposcroll_" + name, .counter, help, value) }
    if let store = await sharedStore?.status() {
      let backend = "backend=\"\(Self.label(store.backend))\""
      let families: [(String, MetricsText.Kind, String, Int)] = [
        (
          "shared_store_up", .gauge, "1 while the shared store answers, 0 while running on local state.",
          store.available ? 1 : 0
        ),
        (
          "shared_store_transitions_total", .counter, "Changes between shared and local-only.",
          store.transitions
        ),
        (
          "shared_store_failures_total", .counter, "Shared store commands that failed or timed out.",
          store.failures
        ),
        (
          "shared_store_error_replies_total", .counter, "Commands refused with an error reply (misses).",
          store.errorReplies
        ),
      ]
      for (name, kind, help, value) in families {
        out.family("reposcroll_" + name, kind, help)
        out.sample("reposcroll_" + name, labels: backend, value)
      }
      store.redis?.render(into: &out)
    }
    let limits = await client.rateLimitSnapshots().sorted { $0.resource < $1.resource }
    out.family("reposcroll_ratelimit_remaining", .gauge, "GitHub requests left in the window, by resource.")
    for limit in limits {
      out.sample(
        "reposcroll_ratelimit_remaining", labels: "resource=\"\(Self.label(limit.resource.name))\"",
        limit.remaining)
    }
    out.family(
      "reposcroll_ratelimit_reset_seconds", .gauge, "When the window resets, Unix seconds, by resource.")
    for limit in limits {
      out.sample(
        "reposcroll_ratelimit_reset_seconds", labels: "resource=\"\(Self.label(limit.resource.name))\"",
        limit.reset)
    }
    return HTTPResponse(
      status: .ok,
      headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8", "Cache-Control": "no-store"],
      body: .bytes(Array(out.text.utf8)))
  }

  /// `GET /healthz`: 200 while the instance serves, which it does with or without its shared store;
  /// a second line says whether the store is shared or the instance runs on local state.
  func health(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
    if draining.isOn {
      return HTTPResponse(
        status: .serviceUnavailable,
        headers: ["Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"],
        body: .bytes(Array("draining\n".utf8)))
    }
    var text = "ok\n"
    if let store = await sharedStore?.status() {
      let seconds = max(0, now() - Int(store.since.rounded(.down)))
      text +=
        store.available
        ? "shared store: \(store.backend) available (\(seconds) s)\n"
        : "shared store: \(store.backend) unavailable for \(seconds) s; serving from local state\n"
      if let line = store.redis?.healthLine { text += line }
    }
    return HTTPResponse(
      status: .ok, headers: ["Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"],
      body: .bytes(Array(text.utf8)))
  }

  /// A label value with only safe characters (resource names come from GitHub's headers).
  private static func label(_ text: String, extra: Unicode.Scalar = "_") -> String {
    String(
      text.unicodeScalars.filter {
        $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == extra
      }
      .prefix(40).map(Character.init))
  }
}
