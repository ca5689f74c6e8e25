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
