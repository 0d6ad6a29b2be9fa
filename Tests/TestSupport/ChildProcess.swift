import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A program the tests run in a process of its own, started with `posix_spawn`.
///
/// Why not Foundation's `Process`: on Linux, its `run()` lists `/proc/self/fd` and copies 256 bytes
/// of every entry's name, reading past the end of short entries; with the many descriptors a full
/// test run holds, that read met an unmapped page and crashed the test process in CI
/// (swift-corelibs-foundation #5472, fixed in no release yet). Here the child closes every
/// descriptor above standard error itself (glibc 2.34 and later, and Darwin), so no pipe of one
/// test leaks into another's child.
public final class ChildProcess: Sendable {
    /// Where a child's standard output or error goes.
    public enum Output: Sendable {
        /// A pipe the test reads: `standardOutput` or `standardError`.
        case pipe
        /// `/dev/null`.
        case discard
    }

    /// How a child ended: `.signal(0)` if something else reaped it, so that it is unknown.
    public enum Termination: Equatable, Sendable {
        case exit(Int32)
        case signal(Int32)
    }

    /// The child's process identifier.
    public let identifier: pid_t
    /// The read end of the child's standard output, if it is `.pipe`.
    public let standardOutput: FileHandle?
    /// The read end of the child's standard error, if it is `.pipe`.
    public let standardError: FileHandle?
    private let termination = Mutex<Termination?>(nil)
    private let reaped = DispatchGroup()

    /// Starts `executable` with `arguments`, in `environment` (the test process's if nil).
    public init(
        _ executable: URL, arguments: [String], environment: [String: String]? = nil,
        standardOutput: Output = .pipe, standardError: Output = .discard
    ) throws {
        #if canImport(Darwin)
        var actions: SpawnActions = nil
        var attributes: SpawnAttributes = nil
        #else
        var actions = SpawnActions()
        var attributes = SpawnAttributes()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        // Pipes are made close-on-exec under the lock every spawn takes, so a child started by
        // another test at the same moment cannot inherit them.
        let (pid, out, err) = try Self.spawnLock.withLock { _ in
            let out = try Self.redirect(standardOutput, to: 1, actions: &actions)
            let err = try Self.redirect(standardError, to: 2, actions: &actions)
            Self.closeDescriptorsAboveStandardError(&actions, &attributes)
            Self.resetSignals(&attributes)
            let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
            let envp = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { (argv + envp).forEach { free($0) } }
            var pid = pid_t()
            let status = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
            for descriptor in [out, err].compactMap({ $0?.childEnd }) { close(descriptor) }
            guard status == 0 else {
                for descriptor in [out, err].compactMap({ $0?.parentEnd }) { close(descriptor) }
                throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO)
            }
            return (pid, out, err)
        }
        identifier = pid
        self.standardOutput = out.map { FileHandle(fileDescriptor: $0.parentEnd, closeOnDealloc: true) }
        self.standardError = err.map { FileHandle(fileDescriptor: $0.parentEnd, closeOnDealloc: true) }
        reapWhenItEnds()
    }

    /// The package's executable product `name`, built beside the test bundle.
    public static func product(_ name: String) -> URL {
        Bundle.main.executableURL!.deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Sends `signal` to the child, if it has not ended.
    public func send(_ signal: Int32) {
        termination.withLock { ended in
            if ended == nil { _ = kill(identifier, signal) }
        }
    }

    /// Whether the child still runs.
    public var isRunning: Bool { termination.withLock { $0 == nil } }

    /// Blocks until the child ends, and tells how.
    @discardableResult
    public func waitUntilExit() -> Termination {
        reaped.wait()
        return termination.withLock { $0! }
    }

    /// Waits for the child to end without holding a task's thread.
    public func exit() async -> Termination {
        await withCheckedContinuation { continuation in
            reaped.notify(queue: .global()) { continuation.resume(returning: self.waitUntilExit()) }
        }
    }

    /// Reaps the child the moment it ends, on a thread of its own. Swift Testing's exit-test
    /// monitor waits on any child with `waitid(P_ALL)`: a child of ours left a zombie keeps it
    /// spinning on a core and its own children unreaped until we wait.
    private func reapWhenItEnds() {
        reaped.enter()
        Thread.detachNewThread { [self] in
            var information = siginfo_t()
            // Wait without reaping, so that `send` never signals an identifier reused meanwhile.
            while waitid(P_PID, id_t(identifier), &information, WEXITED | WNOWAIT) != 0, errno == EINTR {}
            termination.withLock { ended in
                var status: Int32 = 0
                var reaped = waitpid(identifier, &status, 0)
                while reaped == -1, errno == EINTR { reaped = waitpid(identifier, &status, 0) }
                // Reaped by someone else (ECHILD): how it ended is unknown, and no exit status.
                ended = reaped == identifier ? Self.termination(status) : .signal(0)
            }
            reaped.leave()
        }
    }

    private static let spawnLock = Mutex<Void>(())

    #if canImport(Darwin)
    private typealias SpawnActions = posix_spawn_file_actions_t?
    private typealias SpawnAttributes = posix_spawnattr_t?
    #else
    private typealias SpawnActions = posix_spawn_file_actions_t
    private typealias SpawnAttributes = posix_spawnattr_t
    #endif

    private struct Redirection {
        let parentEnd: Int32
        let childEnd: Int32
    }

    private static func redirect(_ output: Output, to target: Int32, actions: inout SpawnActions) throws -> Redirection? {
        switch output {
        case .discard:
            posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            return nil
        case .pipe:
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            posix_spawn_file_actions_adddup2(&actions, ends[1], target)
            return Redirection(parentEnd: ends[0], childEnd: ends[1])
        }
    }

    /// The child keeps only standard input, output and error, whatever the test process holds.
    private static func closeDescriptorsAboveStandardError(_ actions: inout SpawnActions, _ attributes: inout SpawnAttributes) {
        #if canImport(Darwin)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
        #else
        // glibc 2.34 has it; Swift's Glibc module does not show it without _GNU_SOURCE.
        if let closeFrom = closeFrom { _ = closeFrom(&actions, 3) }
        #endif
    }

    /// The child starts with no signal blocked and every signal's default action, whatever the
    /// spawning thread blocks or the test process ignores, as Foundation's `Process` starts it.
    private static func resetSignals(_ attributes: inout SpawnAttributes) {
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags: Int16 = 0
        posix_spawnattr_getflags(&attributes, &flags)
        posix_spawnattr_setflags(&attributes, flags | Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    }

    #if !canImport(Darwin)
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: CloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }
    #endif

    private static func termination(_ status: Int32) -> Termination {
        let signal = status & 0x7f
        return signal == 0 ? .exit((status >> 8) & 0xff) : .signal(signal)
    }
}

extension ChildProcess {
    /// Reads the child's piped standard output and standard error to their ends, both at once:
    /// one read to the end before the other would leave a child that fills the second pipe
    /// (64 KiB, a crash's backtrace) waiting for good. A read a signal interrupts is made again,
    /// where `FileHandle.readDataToEndOfFile()` stops the test process.
    public func readToEnd() -> (out: Data, err: Data) {
        var pipes = [standardOutput, standardError].map { handle in
            (descriptor: handle?.fileDescriptor ?? -1, data: Data())
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while pipes.contains(where: { $0.descriptor >= 0 }) {
            var polled = pipes.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), -1) >= 0 else {
                if errno == EINTR { continue }
                break
            }
            for index in pipes.indices where pipes[index].descriptor >= 0 && polled[index].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(pipes[index].descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    pipes[index].data.append(contentsOf: buffer[..<count])
                } else if count == 0 || errno != EINTR {
                    pipes[index].descriptor = -1
                }
            }
        }
        return (pipes[0].data, pipes[1].data)
    }
}

extension FileHandle {
    /// Reads up to the first newline; what it read if the file ends first.
    public func readLine() throws -> String {
        var bytes = Data()
        while let byte = try read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
