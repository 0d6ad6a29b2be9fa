import Foundation
import ModelKit

/// One-to-many with cascade: deleting a shelf deletes its books.
@Model final class Shelf {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Book.shelf) var books: [Book] = []
    init(name: String) { self.name = name }
}

@Model final class Book {
    var title: String
    var shelf: Shelf?
    init(title: String, shelf: Shelf? = nil) {
        self.title = title
        self.shelf = shelf
    }
}

/// One-to-many with deny, and an inferred inverse.
@Model final class Author {
    var name: String
    @Relationship(deleteRule: .deny) var essays: [Essay] = []
    init(name: String) { self.name = name }
}

@Model final class Essay {
    var title: String
    var author: Author?
    init(title: String, author: Author? = nil) {
        self.title = title
        self.author = author
    }
}

/// A model related to itself: a tree.
@Model final class Category {
    var name: String
    var parent: Category?
    @Relationship(inverse: \Category.parent) var children: [Category] = []
    init(name: String, parent: Category? = nil) {
        self.name = name
        self.parent = parent
    }
}

/// Many-to-many, stored in a join table.
@Model final class Label {
    var name: String
    var posts: [Post] = []
    init(name: String) { self.name = name }
}

@Model final class Post {
    var title: String
    var labels: [Label] = []
    init(title: String) { self.title = title }
}

/// A to-many with no inverse (join table), a required to-one, and a to-one with no inverse.
@Model final class Reader {
    var name: String
    var favorites: [Book] = []
    var bookmark: Book
    @Relationship(deleteRule: .noAction) var visiting: Shelf?
    init(name: String, bookmark: Book) {
        self.name = name
        self.bookmark = bookmark
    }
}
