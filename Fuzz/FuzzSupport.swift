// Helpers every fuzz target is built with (script/fuzz compiles this file beside each fuzz.swift).

/// Stops the run with `message` when `condition` fails: libFuzzer then saves the input that did it.
func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
  if !condition { fatalError(message()) }
}

/// A split point that changes with the input but is reproducible from it alone (FNV-1a of the bytes).
func splitPoint(_ bytes: [UInt8]) -> Int {
  var h: UInt64 = 0xcbf2_9ce4_8422_2325
  for b in bytes {
    h ^= UInt64(b)
    h &*= 0x100_0000_01b3
  }
  return Int(h % UInt64(bytes.count + 1))
}

/// What an incremental parser makes of `bytes` fed whole, which must equal what it makes of them in
/// two feeds split at `splitPoint` and, for inputs up to `trickleLimit` bytes, one byte at a time
/// (as a slowloris peer sends them). `drive` parses the feeds in order and returns the outcome.
func outcomeAgreeingAcrossFeeds<Outcome: Equatable>(
  _ bytes: [UInt8], trickleLimit: Int, _ drive: ([ArraySlice<UInt8>]) -> Outcome
) -> Outcome {
  let split = splitPoint(bytes)
  let whole = drive([bytes[...]])
  let parts = drive([bytes[..<split], bytes[split...]])
  expect(whole == parts, "split at \(split) changed the outcome:\n\(whole)\n\(parts)")
  if bytes.count <= trickleLimit {
    let trickled = drive(bytes.indices.map { bytes[$0...$0] })
    expect(whole == trickled, "byte-wise feeding changed the outcome:\n\(whole)\n\(trickled)")
  }
  return whole
}
