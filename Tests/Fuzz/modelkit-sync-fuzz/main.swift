// `modelkit-sync-fuzz`: bytes as the network would hand them to a sync server, fed to the HTTP
// request parser and through `SyncHTTPHandler` to a `SyncServer` (see `SyncFuzzer` for the
// rules each input must keep).
//
// Built with libFuzzer (by `scripts/fuzz-sync`, through `MODELKIT_FUZZ=1` in Package.swift), it
// is a libFuzzer target and takes libFuzzer's options. Built normally, it replays the inputs it is given, files or directories
// of them, such as the seed corpus or an input libFuzzer saved from a crash:
//
//     swift run modelkit-sync-fuzz Tests/Fuzz/corpus crash-…
//
// and prints how many it replayed; an input that breaks a rule stops it.

import CLibFuzzer
import Foundation

/// One input, for libFuzzer: its driver calls it, and its own `main` needs it to link.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    SyncFuzzer.shared.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

if modelkit_libfuzzer_is_linked() != 0 {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
}

var files: [URL] = []
for argument in CommandLine.arguments.dropFirst() {
    let url = URL(fileURLWithPath: argument)
    guard (try? url.resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory == true else {
        files.append(url)
        continue
    }
    files += ((try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)) ?? []).sorted { $0.path < $1.path }
}
guard !files.isEmpty else {
    FileHandle.standardError.write(Data("usage: modelkit-sync-fuzz INPUT-OR-DIRECTORY...\n".utf8))
    exit(2)
}
for file in files {
    guard let input = FileManager.default.contents(atPath: file.path) else {
        FileHandle.standardError.write(Data("modelkit-sync-fuzz: cannot read \(file.path)\n".utf8))
        exit(1)
    }
    SyncFuzzer.shared.run(Array(input))
}
print("modelkit-sync-fuzz: \(files.count) inputs replayed, every rule kept")
