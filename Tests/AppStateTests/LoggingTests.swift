import Testing
@testable import AppState

@Suite struct LoggingTests {
    @Test func debugChatterIsOptInWhileErrorsAlwaysReachTheLogger() {
        let log = CapturedLog()
        Application.logging(isEnabled: false)
        log.logger.debug("quiet")
        log.logger.info("quiet")
        log.logger.error("loud")
        #expect(log.entries.map(\.message) == ["loud"])
        #expect(Application.logging(isEnabled: true).isLoggingEnabled)
        log.logger.debug("chatty")
        Application.logging(isEnabled: false)
        #expect(log.entries.map(\.message) == ["loud", "chatty"])
    }

    @Test func entriesCarryTheCallersLocation() {
        let log = CapturedLog()
        log.logger.warning("here")
        let entry = log.entries.first
        #expect(entry?.fileID == "AppStateTests/LoggingTests.swift")
        #expect(entry?.line == 20)
        #expect(entry?.description == "[AppState] warning AppStateTests/LoggingTests.swift:20: here")
    }

    @Test func loggerIsAnInjectableDependency() {
        let log = CapturedLog()
        Application.withIsolatedScope {
            let token = Application.override(\.logger, with: log.logger)
            Application.log.error("through the dependency")
            withExtendedLifetime(token) {}
        }
        #expect(log.messages(at: .error) == ["through the dependency"])
    }
}
