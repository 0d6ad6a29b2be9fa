import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the tasks answering requests, and ``SyncHTTPServer/stop()``, reach the server's I/O
/// thread while it waits on its sockets: they leave an answer (or the stop) here and write a
/// byte to a pipe the thread watches, once per batch however many answers it holds.
final class HTTPMailbox: Sendable {
    /// A handler's response to the request read on connection `connection`, at `descriptor`.
    struct Answer: Sendable {
        var descriptor: Int32
        var connection: UInt64
        var response: SyncHTTPHandler.Response
    }

    private struct State {
        var answers: [Answer] = []
        var stopping = false
        /// A byte is in the pipe that the I/O thread has not read yet.
        var signaled = false
        var open = true
    }

    /// The end the I/O thread watches.
    let readEnd: Int32
    private let writeEnd: Int32
    private let state = Mutex(State())

    init() throws(SyncError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SyncError(.transportFailed, "cannot create a pipe: \(String(cString: strerror(errno)))") }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    func post(_ answer: Answer) {
        state.withLock { state in
            guard state.open else { return }
            state.answers.append(answer)
            wake(&state)
        }
    }

    func requestStop() {
        state.withLock { state in
            state.stopping = true
            wake(&state)
        }
    }

    /// The answers left since the last call, and whether the server is to stop.
    func take() -> (answers: [Answer], stopping: Bool) {
        state.withLock { state in
            if state.signaled {
                var byte: UInt8 = 0
                while read(readEnd, &byte, 1) > 0 {}
                state.signaled = false
            }
            defer { state.answers = [] }
            return (state.answers, state.stopping)
        }
    }

    /// Closes the pipe; answers posted afterwards are dropped.
    func close() {
        state.withLock { state in
            guard state.open else { return }
            state.open = false
            state.answers = []
            _ = closeDescriptor(readEnd)
            _ = closeDescriptor(writeEnd)
        }
    }

    /// Under the lock, so that the pipe is never written once closed (its number may be another
    /// file's by then).
    private func wake(_ state: inout State) {
        guard state.open, !state.signaled else { return }
        state.signaled = true
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }
}

/// `close(2)`, under a name that the types with a `close()` of their own can call.
func closeDescriptor(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
