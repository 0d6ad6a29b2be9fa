import XCTest

@testable import AppState

// Shaped like AppState 3.0.1's own `OptionalSliceTests`: an optional state whose parts are
// optional (`username`) and not (`isLoading`, `value`), read and written through
// `@OptionalSlice`, `@OptionalConstant` and `Application.slice`, with no type annotations.

private struct ExampleValue {
    var username: String?
    var isLoading: Bool
    let value: String
}

extension Application {
    fileprivate var optionalSliceExample: State<ExampleValue?> {
        state(initial: ExampleValue(username: nil, isLoading: false, value: "value"), id: "optionalSliceExample")
    }
}

@MainActor
private final class ExampleViewModel {
    @OptionalSlice(\.optionalSliceExample, \.username) var username
    @OptionalConstant(\.optionalSliceExample, \.value) var value
    @OptionalSlice(\.optionalSliceExample, \.isLoading) var isLoading
    @OptionalConstant(\.optionalSliceExample, \.username) var constantUsername
}

final class OptionalSliceTests: XCTestCase {
    @MainActor
    func testSliceOfAnOptionalPartSetsAndClearsIt() async {
        Application.withIsolatedScope {
            let exampleSlice = Application.slice(\.optionalSliceExample, \.username)
            exampleSlice.value = "New Value!"
            XCTAssertEqual(exampleSlice.value, "New Value!")
            XCTAssertEqual(Application.slice(\.optionalSliceExample, \.username).value, "New Value!")
            XCTAssertEqual(Application.state(\.optionalSliceExample).value?.username, "New Value!")
            exampleSlice.value = nil
            XCTAssertNil(Application.state(\.optionalSliceExample).value?.username)
            XCTAssertNotNil(Application.state(\.optionalSliceExample).value)
        }
    }

    @MainActor
    func testPropertyWrappersOfOptionalPartsAreSingleOptionals() async {
        Application.withIsolatedScope {
            let viewModel = ExampleViewModel()
            let username: String? = viewModel.username
            XCTAssertNil(username)
            viewModel.username = "Hello, ViewModel"
            XCTAssertEqual(viewModel.username, "Hello, ViewModel")
            XCTAssertEqual(viewModel.constantUsername, "Hello, ViewModel")
            viewModel.username = nil
            viewModel.isLoading = nil
            XCTAssertNil(viewModel.username)
            XCTAssertNil(viewModel.constantUsername)
            XCTAssertEqual(viewModel.isLoading, false)
            XCTAssertEqual(viewModel.value, "value")
        }
    }

    @MainActor
    func testNil() async {
        Application.withIsolatedScope {
            let viewModel = ExampleViewModel()
            viewModel.username = nil
            XCTAssertNil(viewModel.username)
            viewModel.username = "Leif"
            XCTAssertNotNil(viewModel.username)
            viewModel.username = nil
            XCTAssertNil(viewModel.username)
        }
    }

    @MainActor
    func testWritesWhileTheStateIsNilDoNothing() async {
        Application.withIsolatedScope {
            let viewModel = ExampleViewModel()
            let state = Application.state(\.optionalSliceExample)
            state.value = nil
            viewModel.username = "Leif"
            XCTAssertNil(viewModel.username)
            XCTAssertNil(viewModel.constantUsername)
            XCTAssertNil(Application.constant(\.optionalSliceExample, \.username).value)
        }
    }
}
