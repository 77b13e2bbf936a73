/// The capture sources' and the extensions' options as `recordctl record --help` and `start --help`
/// list them, from their declarations (the sources' and the catalog's manifests), one section per
/// source and per extension, in the layout ArgumentParser uses for the command's own options.
package enum OptionHelp {
    /// The sections for `resolver`'s sources, then its extensions; empty when none declares an option.
    package static func text(_ resolver: OptionResolver, width: Int = 80) -> String {
        var lines: [String] = []
        let sections = resolver.sourceDeclarations.map { (title: "CAPTURE \($0.source.uppercased()) OPTIONS (declared by the \($0.source) source; "
                                                                 + "config key: the option's name):", option: $0.option) }
            + resolver.declarations.map { (title: "OUTPUT \($0.extension.uppercased()) OPTIONS (declared by the \($0.extension) extension; "
                                                + "config key: the option's name):", option: $0.option) }
        var current: String?
        for (title, option) in sections {
            if title != current {
                lines.append("")
                lines.append(title)
                current = title
            }
            lines += self.lines(option, width: width)
        }
        return lines.joined(separator: "\n")
    }

    /// One option: its spelling and value in a 26-column label, its help wrapped at `width`.
    private static func lines(_ option: OptionDeclaration, width: Int) -> [String] {
        var lines: [String] = []
        var label = "  " + option.spelling
        if option.takesValue { label += " " + option.valueLabel }
        var help = option.help
        if let choices = option.choices { help += " (values: \(choices.joined(separator: ", ")))" }
        if option.repeatable { help += " (repeatable)" }
        let indent = 26
        var line = label.count < indent - 1 ? label.padding(toLength: indent, withPad: " ", startingAt: 0) : label
        if label.count >= indent - 1 {
            lines.append(line)
            line = String(repeating: " ", count: indent)
        }
        var empty = true
        for word in help.split(separator: " ") {
            if !empty && line.count + 1 + word.count > width {
                lines.append(line)
                line = String(repeating: " ", count: indent)
                empty = true
            }
            line += (empty ? "" : " ") + word
            empty = false
        }
        lines.append(line)
        return lines
    }
}
