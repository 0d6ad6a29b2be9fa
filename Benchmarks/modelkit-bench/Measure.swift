import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock seconds of `body`.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// The process's peak resident memory, from `/proc/self/status` (VmHWM), in megabytes.
func peakResidentMegabytes() -> Double? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return nil }
    return kilobytes / 1024
}

/// Resets the peak resident memory to the current resident memory, so the next reading covers
/// only what follows (Linux: writing 5 to `/proc/self/clear_refs`). Freed heap memory goes back
/// to the system first, so one side's leftovers do not count against the other.
func resetPeakResident() {
    #if canImport(Glibc)
    // glibc's malloc_trim is not in the Glibc module; look it up.
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
        _ = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)(0)
    }
    #endif
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

/// A directory for one run's stores, removed afterwards.
func withTemporaryDirectory<R>(_ body: (URL) throws -> R) throws -> R {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("modelkit-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}
