import Foundation
import TestSupport
import Testing

/// Runs the `appstate-demo` executable as separate processes, to check that StoredState and
/// FileState values survive a new process.
@Suite struct DemoProcessTests {
    @Test func storedAndFileStateSurviveANewProcess() throws {
        let demo = try CommandLineTool("appstate-demo")
        let first = try demo.run("Ada")
        #expect(first.status == 0)
        #expect(first.out.contains("Hello, Ada!"))
        #expect(first.out.contains("launch 1 (UserDefaults)"))
        #expect(first.out.contains("launch 1 (\(demo.dataDirectory.path)/appstate-demo/launches.json)"))
        let second = try demo.run("Bob")
        #expect(second.out.contains("launch 2 (UserDefaults)"))
        #expect(second.out.contains("launch 2 ("))
        #expect(second.out.contains("previous launch"))
        #expect(try demo.run("reset").status == 0)
        #expect(try demo.run("Cy").out.contains("launch 1 (UserDefaults)"))
    }
}
