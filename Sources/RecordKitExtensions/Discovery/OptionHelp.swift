/// The extensions' options as `recordctl record --help` and `start --help` list them, from the
/// catalog (their manifests), one section per extension, in the layout ArgumentParser uses for
/// the command's own options.
package enum OptionHelp {
    /// The sections for `resolver`'s extensions; empty when none declares an option.
    package static func text(_ resolver: OptionResolver, width: Int = 80) -> String {
        var lines: [String] = []
        var current: String?
        for (ext, option) in resolver.declarations {
            if ext != current {
                lines.append("")
                lines.append("OUTPUT \(ext.uppercased()) OPTIONS (declared by the \(ext) extension; config key: the option's name):")
                current = ext
            }
            var label = "  " + option.spelling
            if option.takesValue { label += " <\(option.valueName ?? option.type.rawValue)>" }
            var help = option.help
            if let choices = option.choices { help += " (values: \(choices.joined(separator: ", ")))" }
            if option.repeatable { help += " (repeatable)" }
            let indent = 26
            let words = help.split(separator: " ")
            var line = label.count < indent - 1 ? label.padding(toLength: indent, withPad: " ", startingAt: 0) : label
            if label.count >= indent - 1 {
                lines.append(line)
                line = String(repeating: " ", count: indent)
            }
            var empty = true
            for word in words {
                if !empty && line.count + 1 + word.count > width {
                    lines.append(line)
                    line = String(repeating: " ", count: indent)
                    empty = true
                }
                line += (empty ? "" : " ") + word
                empty = false
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
