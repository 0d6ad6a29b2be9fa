import ModelKitSync
import Synchronization

/// The way from one device to its server instance, failing as networks do while its faults are
/// on, at random from its own seed: a request dropped before it reaches the server, an answer
/// lost after the server applied the request, a push delivered twice at once (the first answer
/// returned), or kept and delivered again later. Every delivery of a push must get its first
/// answer; one that does not is a problem of the run.
final class ChaosTransport: SyncTransport {
    let server: SyncServer
    private let name: String
    private let ledger: ChaosLedger
    private let state: Mutex<State>

    private struct State {
        var random: ChaosRandom
        var faults = true
        /// Pushes to deliver again later.
        var later: [SyncPushRequest] = []
        /// The first answer to each push, by its identifier.
        var answers: [String: SyncPushResponse] = [:]
    }

    private enum Plan { case deliver, drop, loseAnswer, twiceAtOnce }

    /// What the transport throws for a request it failed.
    struct Fault: Error, CustomStringConvertible {
        let description: String
    }

    init(server: SyncServer, name: String, random: ChaosRandom, ledger: ChaosLedger) {
        self.server = server
        self.name = name
        self.ledger = ledger
        state = Mutex(State(random: random))
    }

    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        let (plan, replay) = state.withLock { state -> (Plan, SyncPushRequest?) in
            guard state.faults else { return (.deliver, nil) }
            var replay: SyncPushRequest?
            if !state.later.isEmpty, state.random.chance(30) {
                replay = state.later.remove(at: Int.random(in: 0..<state.later.count, using: &state.random))
            }
            if state.random.chance(10) { state.later.append(request) }
            let roll = Int.random(in: 0..<100, using: &state.random)
            return (roll < 8 ? .drop : roll < 16 ? .loseAnswer : roll < 26 ? .twiceAtOnce : .deliver, replay)
        }
        if let replay { await deliverAgain(replay) }
        let id = request.id.prefix(8)
        switch plan {
        case .deliver:
            return try await deliver(request)
        case .drop:
            ledger.log("\(name) push \(id): dropped before the server")
            throw Fault(description: "push \(id) dropped")
        case .loseAnswer:
            _ = try await deliver(request)
            ledger.log("\(name) push \(id): applied, answer lost")
            throw Fault(description: "push \(id) answer lost")
        case .twiceAtOnce:
            ledger.log("\(name) push \(id): delivered twice at once")
            async let second = try? deliver(request)
            let first = try await deliver(request)
            _ = await second
            return first
        }
    }

    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        let roll = state.withLock { $0.faults ? Int.random(in: 0..<100, using: &$0.random) : 100 }
        if roll < 6 { throw Fault(description: "pull dropped") }
        let page = try await server.pull(request)
        if roll < 12 { throw Fault(description: "pull answer lost") }
        return page
    }

    /// Turns faults off; delivers the pushes kept for later.
    func quiet() async {
        let later = state.withLock { state in
            state.faults = false
            defer { state.later = [] }
            return state.later
        }
        for request in later { await deliverAgain(request) }
    }

    private func deliver(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        let answer = try await server.push(request)
        let first = state.withLock { state in
            if let first = state.answers[request.id] { return first }
            state.answers[request.id] = answer
            return answer
        }
        if first != answer {
            ledger.problem("\(name) push \(request.id.prefix(8)) was answered differently on another delivery:\n  first \(first)\n  later \(answer)")
        }
        return answer
    }

    private func deliverAgain(_ request: SyncPushRequest) async {
        do {
            _ = try await deliver(request)
            ledger.log("\(name) push \(request.id.prefix(8)): delivered again")
        } catch {
            ledger.log("\(name) push \(request.id.prefix(8)): delivered again, failed: \(error)")
        }
    }
}
