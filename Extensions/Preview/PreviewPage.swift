/// The preview page (`Extensions/Preview/page.html`): one HTML file with its CSS and plain
/// JavaScript, embedded in the binary at build time; no build step, nothing fetched at run time.
enum PreviewPage {
    /// The page's bytes.
    static var html: [UInt8] { PackageResources.page_html }
}
