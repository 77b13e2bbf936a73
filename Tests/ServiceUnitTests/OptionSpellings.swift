import Foundation

/// How the Swift code of one part spells command-line options, in every form a hand-written copy of
/// a declared option could take: a literal `"--rtmp"`, a token inside a message or help text
/// (`"--no-file contradicts …"`), a bare name (`"no-file"`, `.customLong("rtmp")`, a set of names),
/// or an ArgumentParser property that derives the spelling (`@Flag var noFile` is `--no-file`).
/// Grouped by top-level type, so that a verb's own option (`stop --output`) can be told from a
/// copy of a declared one. Comments are left out; every spelling is kept as `--name` (`-o` for a
/// one-letter one).
struct OptionSpellings: Equatable {
    /// What one top-level type (or a file's free code) spells.
    struct TypeSpellings: Equatable {
        /// The options its ArgumentParser properties (`@Option`, `@Flag`) define.
        var parsed: Set<String> = []
        /// The spellings that are a whole string literal: `"--rtmp"`, `"--rtmp=…"`, `"-o"`, a bare
        /// name (`"no-file"`, `.customLong("rtmp")`); a verb's name (`commandName:`) left out.
        var literals: Set<String> = []
        /// The `--word` tokens inside longer texts (messages, help, discussions).
        var prose: Set<String> = []
        /// The types it includes with `@OptionGroup`.
        var groups: Set<String> = []
    }

    /// By type name (`extension X` counts as `X`); a file's free functions under `(file NAME)`.
    var types: [String: TypeSpellings] = [:]

    /// Every spelling of every type, whatever the form.
    var all: Set<String> { types.values.reduce(into: []) { $0.formUnion($1.parsed.union($1.literals).union($1.prose)) } }

    /// The types reachable from `roots` through `@OptionGroup`, roots included.
    func closure(from roots: Set<String>) -> Set<String> {
        var seen: Set<String> = []
        var pending = Array(roots)
        while let next = pending.popLast() {
            guard seen.insert(next).inserted else { continue }
            pending += types[next]?.groups ?? []
        }
        return seen
    }

    /// Reads every Swift file under `directory`.
    static func scan(_ directory: URL) -> OptionSpellings {
        var result = OptionSpellings()
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift", let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            result.add(text, file: file.lastPathComponent)
        }
        return result
    }

    /// Adds one file's spellings.
    mutating func add(_ text: String, file: String) {
        var current = "(file \(file))"
        var pendingProperty = false  // an `@Option`/`@Flag` whose `var` is on a later line
        var customLong = false
        var shortAndLong = false
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(rawLine)
            if let name = Self.topLevelType(line) { current = name } else if line.first.map({ !$0.isWhitespace && $0 != "}" && $0 != "/" }) == true {
                current = "(file \(file))"
            }
            let code = Self.code(of: line)
            var entry = types[current] ?? TypeSpellings()
            let literals = Self.literals(in: code)
            for literal in literals {
                let tokens = Self.tokens(in: literal)
                if literal.hasPrefix("--"), let first = tokens.first, tokens.count == 1, literal.count <= first.count + 1 || literal.dropFirst(first.count).first == "=" {
                    entry.literals.insert(first)
                } else {
                    entry.prose.formUnion(tokens)
                }
                if literal.count == 2, literal.first == "-", literal.last?.isLetter == true { entry.literals.insert(literal) }
                if Self.isBareName(literal), !code.contains("commandName:") { entry.literals.insert("--" + literal) }
            }
            if code.contains("@OptionGroup"), let type = Self.declaredType(in: code) { entry.groups.insert(type) }
            if code.contains("@Option") && !code.contains("@OptionGroup") || code.contains("@Flag") {
                pendingProperty = true
                customLong = false
                shortAndLong = false
            }
            if pendingProperty {
                // `.customLong("force")` names the option itself; `.shortAndLong` adds `-` and the first letter.
                for literal in literals where code.contains(".customLong(\"\(literal)\"") {
                    customLong = true
                    entry.parsed.insert("--" + literal)
                }
                if code.contains(".shortAndLong") { shortAndLong = true }
                if let property = Self.propertyName(in: code) {
                    if !customLong { entry.parsed.insert("--" + Self.kebab(property)) }
                    if shortAndLong, let letter = property.first { entry.parsed.insert("-\(letter)") }
                    pendingProperty = false
                }
            }
            types[current] = entry
        }
    }

    /// `struct Name`, `enum Name`, `final class Name`, `extension Name` at the start of a line.
    static func topLevelType(_ line: String) -> String? {
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard line.first?.isLetter == true else { return nil }
        var i = 0
        while i < words.count, ["private", "fileprivate", "package", "internal", "public", "final", "indirect"].contains(words[i]) { i += 1 }
        guard i + 1 < words.count, ["struct", "enum", "class", "extension", "actor"].contains(words[i]) else { return nil }
        return String(words[i + 1].prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." })
    }

    /// The line without a trailing `//` comment (a `//` inside a literal is rare in this code and
    /// only hides spellings, never invents them); a doc comment line is empty.
    static func code(of line: String) -> String {
        let trimmed = line.drop { $0.isWhitespace }
        if trimmed.hasPrefix("//") || trimmed.hasPrefix("*") || trimmed.hasPrefix("/*") { return "" }
        var inString = false
        var previous: Character = " "
        var index = line.startIndex
        while index < line.endIndex {
            let c = line[index]
            if c == "\"" && previous != "\\" { inString.toggle() }
            if !inString && c == "/" && previous == "/" { return String(line[..<line.index(before: index)]) }
            previous = c
            index = line.index(after: index)
        }
        return line
    }

    /// The contents of the string literals on a line of code (interpolations kept as text).
    static func literals(in code: String) -> [String] {
        code.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// The `--word` tokens in a literal, as `--word` (`--name=value` gives `--name`).
    static func tokens(in literal: String) -> Set<String> {
        var found: Set<String> = []
        let scalars = Array(literal)
        var i = 0
        while i + 2 < scalars.count {
            if scalars[i] == "-", scalars[i + 1] == "-", i == 0 || !(scalars[i - 1].isLetter || scalars[i - 1].isNumber || scalars[i - 1] == "-"),
               scalars[i + 2].isLetter {
                var j = i + 2
                while j < scalars.count, scalars[j].isLowercase || scalars[j].isNumber || scalars[j] == "-" { j += 1 }
                var word = String(scalars[(i + 2)..<j])
                while word.hasSuffix("-") { word.removeLast() }
                if !word.isEmpty { found.insert("--" + word) }
                i = j
            } else {
                i += 1
            }
        }
        return found
    }

    /// Whether a whole literal is an option's bare name: lowercase letters, digits and `-`.
    static func isBareName(_ literal: String) -> Bool {
        guard let first = literal.first, first.isLowercase else { return false }
        return literal.allSatisfy { ($0.isLowercase && $0.isASCII) || $0.isNumber || $0 == "-" }
    }

    /// `Type` in `@OptionGroup … var name: Type`.
    static func declaredType(in code: String) -> String? {
        guard let colon = code.range(of: ":", options: .backwards) else { return nil }
        let type = code[colon.upperBound...].trimmingCharacters(in: .whitespaces).prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return type.isEmpty ? nil : String(type)
    }

    /// `name` in `var name` on a line of code.
    static func propertyName(in code: String) -> String? {
        guard let range = code.range(of: "var ") else { return nil }
        let name = code[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return name.isEmpty ? nil : String(name)
    }

    /// ArgumentParser's long name for a property: `noFile` is `no-file`.
    static func kebab(_ name: String) -> String {
        var result = ""
        for c in name {
            if c.isUppercase {
                if !result.isEmpty { result.append("-") }
                result.append(Character(c.lowercased()))
            } else {
                result.append(c)
            }
        }
        return result
    }
}
