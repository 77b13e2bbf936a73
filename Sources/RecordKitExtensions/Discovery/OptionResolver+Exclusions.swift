import RecordKitControl

extension OptionResolver {
    /// Whether `a` and `b` cannot be combined (either declares it).
    static func exclude(_ a: OptionDeclaration, _ b: OptionDeclaration) -> Bool {
        a.excludes.contains(b.name) || b.excludes.contains(a.name)
    }

    /// Throws `bad_argument` for two of `uses` that exclude each other; with `configured`, the
    /// message names the lines they were written on.
    static func checkExclusions(_ uses: [Use], configured: [ConfiguredOption]? = nil) throws(ControlError) {
        for (i, first) in uses.enumerated() {
            for second in uses[(i + 1)...] where exclude(first.option, second.option) {
                // Named from the option that declares the exclusion.
                let (a, b) = first.option.excludes.contains(second.option.name) ? (first, second) : (second, first)
                guard let configured else {
                    throw ControlError(.badArgument, "--\(a.option.name) cannot be combined with --\(b.option.name)")
                }
                func origin(_ name: String) -> String { configured.first { $0.name == name }?.origin ?? "the config file" }
                throw ControlError(.badArgument, "\(origin(a.option.name)): \(a.option.name) cannot be combined with \(b.option.name) "
                                   + "(\(origin(b.option.name))): remove one")
            }
        }
    }
}
