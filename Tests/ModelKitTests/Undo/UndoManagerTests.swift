import Foundation
import ModelKit
import Testing

/// The undo manager ModelKit supplies where Foundation has none, checked against Foundation's
/// documented behaviour; on Apple platforms these run against Foundation's own.
@MainActor @Suite struct UndoManagerTests {
    final class Counter { var value = 0 }

    func increment(_ counter: Counter, by amount: Int, with manager: UndoManager) {
        counter.value += amount
        manager.registerUndo(withTarget: counter) { counter in self.increment(counter, by: -amount, with: manager) }
    }

    @Test func undoAndRedoReplayRegisteredActionsAsGroups() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let counter = Counter()
        manager.beginUndoGrouping()
        increment(counter, by: 1, with: manager)
        increment(counter, by: 10, with: manager)
        manager.setActionName("Add")
        manager.endUndoGrouping()
        #expect(counter.value == 11 && manager.canUndo && !manager.canRedo && manager.undoActionName == "Add")
        #expect(manager.undoMenuItemTitle == "Undo Add")
        manager.undo()
        #expect(counter.value == 0 && !manager.canUndo && manager.canRedo && manager.redoActionName == "Add")
        manager.redo()
        #expect(counter.value == 11 && manager.canUndo && !manager.canRedo)
    }

    @Test func aNewRegistrationClearsRedoAndLevelsOfUndoDropTheOldest() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        manager.levelsOfUndo = 2
        let counter = Counter()
        for amount in [1, 2, 3] { increment(counter, by: amount, with: manager) }
        #expect(manager.undoCount == 2)
        manager.undo()
        #expect(counter.value == 3 && manager.canRedo)
        increment(counter, by: 100, with: manager)
        #expect(!manager.canRedo)
        manager.undo()
        manager.undo()
        #expect(counter.value == 1 && !manager.canUndo)
    }

    @Test func byEventARegistrationOpensAGroupThatUndoCloses() {
        let manager = UndoManager()
        let counter = Counter()
        increment(counter, by: 1, with: manager)
        increment(counter, by: 2, with: manager)
        #expect(manager.groupingLevel == 1)
        manager.undo()
        #expect(counter.value == 0 && manager.groupingLevel == 0)
    }

    @Test func disabledRegistrationAndRemovedActionsAreNotUndone() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let counter = Counter()
        manager.disableUndoRegistration()
        increment(counter, by: 5, with: manager)
        #expect(!manager.isUndoRegistrationEnabled && !manager.canUndo)
        manager.enableUndoRegistration()
        increment(counter, by: 1, with: manager)
        manager.removeAllActions(withTarget: counter)
        #expect(!manager.canUndo)
        increment(counter, by: 1, with: manager)
        manager.removeAllActions()
        #expect(!manager.canUndo && counter.value == 7)
    }

    @Test func undoAndRedoPostTheirNotifications() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let counter = Counter()
        final class Names: @unchecked Sendable { var list: [String] = [] }
        let names = Names()
        let observers = [NSNotification.Name.NSUndoManagerWillUndoChange, .NSUndoManagerDidUndoChange, .NSUndoManagerWillRedoChange, .NSUndoManagerDidRedoChange]
            .map { name in
                NotificationCenter.default.addObserver(forName: name, object: manager, queue: nil) { names.list.append($0.name.rawValue) }
            }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        increment(counter, by: 1, with: manager)
        manager.undo()
        manager.redo()
        #expect(names.list == [
            NSNotification.Name.NSUndoManagerWillUndoChange.rawValue, NSNotification.Name.NSUndoManagerDidUndoChange.rawValue,
            NSNotification.Name.NSUndoManagerWillRedoChange.rawValue, NSNotification.Name.NSUndoManagerDidRedoChange.rawValue,
        ])
    }
}
