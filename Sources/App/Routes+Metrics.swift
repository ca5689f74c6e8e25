import GitHub
import HTTP
import SharedStore

extension Routes {
  /// `GET /metrics`: requests by route and status, in flight, upstream calls by endpoint and status,
  /// cache counters and rate-limit remaining by resource, in Prometheus text format.
  func metricsText() async -> HTTPResponse {
    var out = ""
    out.reserveCapacity(4096)
    metrics.render(into: &out)
    readAhead.render(into: &out)
    warming.render(into: &out)
    let github = await client.metrics()
    out += "# HELP reposcroll_upstream_calls_total Calls to GitHub, by endpoint and status (0: no answer).\n"
    out += "# TYPE reposcroll_upstream_calls_total counter\n"
    for endpoint in GitHubEndpoint.allCases {
      for (status, count) in (github.upstreamCalls[endpoint] ?? [:]).sorted(by: { $0.key < $1.key }) {
        out +=
          "reposcroll_upstream_calls_total{endpoint=\"\(endpoint.rawValue)\",status=\"\(status)\"} \(count)\n"
      }
    }
    out +=
      "# HELP reposcroll_upstream_items_skipped_total Malformed items or weeks left out of GitHub answers.\n"
    out += "# TYPE reposcroll_upstream_items_skipped_total counter\n"
    for endpoint in GitHubEndpoint.allCases {
      guard let count = github.itemsSkipped[endpoint] else { continue }
      out += "reposcroll_upstream_items_skipped_total{endpoint=\"\(endpoint.rawValue)\"} \(count)\n"
    }
    let counters: [(String, String, Int)] = [
      ("cache_hits_total", "Answers from a fresh cache entry.", github.cacheHits),
      ("cache_misses_total", "Requests that needed GitHub (or were refused locally).", github.cacheMisses),
      ("coalesced_total", "Requests that joined an identical one in flight.", github.coalesced),
      ("revalidated_total", "Expired entries confirmed by a 304.", github.revalidated),
      ("stale_served_total", "Expired entries served because GitHub failed.", github.staleServed),
      (
        "rate_limited_locally_total", "Requests refused locally for an exhausted limit.",
        github.rateLimitedLocally
      ),
      (
        "cancelled_total", "Calls to GitHub cancelled because every client waiting for them left.",
        github.cancelledUpstream
      ),
    ]
    for (name, help, value) in counters {
      out += "# HELP reposcroll_upstream_\(name) \(help)\n# TYPE reposcroll_upstream_\(name) counter\n"
      out += "reposcroll_upstream_\(name) \(value)\n"
    }
    out += "# HELP reposcroll_cache_bytes Bytes held by the GitHub response cache.\n"
    out += "# TYPE reposcroll_cache_bytes gauge\nreposcroll_cache_bytes \(github.cacheBytes)\n"
    out += "# HELP reposcroll_cache_entries Entries in the GitHub response cache.\n"
    out += "# TYPE reposcroll_cache_entries gauge\nreposcroll_cache_entries \(github.cacheEntries)\n"
    for (name, help, value) in [
      ("shared_hits_total", "Answers taken from a value another instance stored.", github.sharedHits),
      (
        "shared_waits_total", "Requests that waited for another instance's upstream call.", github.sharedWaits
      ),
      (
        "shared_rejected_total", "Shared values refused as malformed or foreign (misses).",
        github.sharedRejected
      ),
    ] {
      out +=
        "# HELP reposcroll_\(name) \(help)\n# TYPE reposcroll_\(name) counter\nreposcroll_\(name) \(value)\n"
    }
    if let store = await sharedStore?.status() {
      let backend = Self.label(store.backend)
      out +=
        "# HELP reposcroll_shared_store_up 1 while the shared store answers, 0 while running on local state.\n"
      out += "# TYPE reposcroll_shared_store_up gauge\n"
      out += "reposcroll_shared_store_up{backend=\"\(backend)\"} \(store.available ? 1 : 0)\n"
      out += "# HELP reposcroll_shared_store_transitions_total Changes between shared and local-only.\n"
      out += "# TYPE reposcroll_shared_store_transitions_total counter\n"
      out += "reposcroll_shared_store_transitions_total{backend=\"\(backend)\"} \(store.transitions)\n"
      out += "# HELP reposcroll_shared_store_failures_total Shared store commands that failed or timed out.\n"
      out += "# TYPE reposcroll_shared_store_failures_total counter\n"
      out += "reposcroll_shared_store_failures_total{backend=\"\(backend)\"} \(store.failures)\n"
      out +=
        "# HELP reposcroll_shared_store_error_replies_total Commands refused with an error reply (misses).\n"
      out += "# TYPE reposcroll_shared_store_error_replies_total counter\n"
      out += "reposcroll_shared_store_error_replies_total{backend=\"\(backend)\"} \(store.errorReplies)\n"
    }
    let limits = await client.rateLimitSnapshots().sorted { $0.resource < $1.resource }
    out += "# HELP reposcroll_ratelimit_remaining GitHub requests left in the window, by resource.\n"
    out += "# TYPE reposcroll_ratelimit_remaining gauge\n"
    for limit in limits {
      out +=
        "reposcroll_ratelimit_remaining{resource=\"\(Self.label(limit.resource.name))\"} \(limit.remaining)\n"
    }
    out += "# HELP reposcroll_ratelimit_reset_seconds When the window resets, Unix seconds, by resource.\n"
    out += "# TYPE reposcroll_ratelimit_reset_seconds gauge\n"
    for limit in limits {
      out +=
        "reposcroll_ratelimit_reset_seconds{resource=\"\(Self.label(limit.resource.name))\"} \(limit.reset)\n"
    }
    return HTTPResponse(
      status: .ok,
      headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8", "Cache-Control": "no-store"],
      body: .bytes(Array(out.utf8)))
  }

  /// `GET /healthz`: 200 while the instance serves, which it does with or without its shared store;
  /// a second line says whether the store is shared or the instance runs on local state.
  func healthText() async -> HTTPResponse {
    var text = "ok\n"
    if let store = await sharedStore?.status() {
      let seconds = max(0, now - Int(store.since.rounded(.down)))
      text +=
        store.available
        ? "shared store: \(store.backend) available (\(seconds) s)\n"
        : "shared store: \(store.backend) unavailable for \(seconds) s; serving from local state\n"
    }
    return HTTPResponse(
      status: .ok, headers: ["Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"],
      body: .bytes(Array(text.utf8)))
  }

  /// A label value with only safe characters (resource names come from GitHub's headers).
  private static func label(_ text: String) -> String {
    String(
      text.unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }
        .prefix(40).map(Character.init))
  }
}
