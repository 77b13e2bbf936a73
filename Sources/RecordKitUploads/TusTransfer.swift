import Foundation

/// tus 1.0 (tus.io/protocols/resumable-upload): creation (`POST` with `Upload-Length`), `HEAD`
/// for the offset the server has, `PATCH` from there in 8 MiB pieces, termination (`DELETE`) on
/// cancel. An `Authorization` header comes from recordd's `RECORDKIT_TUS_AUTHORIZATION`, never
/// from a command line. Checked at the end: the server's offset equals the file's size (tus
/// has no whole-file checksum every server knows).
struct TusTransfer: UploadTransfer {
    static let piece: Int64 = 8 << 20

    private func headers(_ context: UploadContext, _ extra: [(String, String)]) -> [(String, String)] {
        var h = [("Tus-Resumable", "1.0.0")] + extra
        if let auth = context.environment["RECORDKIT_TUS_AUTHORIZATION"], !auth.isEmpty { h.append(("Authorization", auth)) }
        return h
    }

    private func host(_ url: String) -> String {
        guard let c = URLComponents(string: url), let h = c.host else { return "the tus server" }
        return c.port.map { "\(h):\($0)" } ?? h
    }

    func run(_ record: inout UploadRecord, context: UploadContext) throws(UploadError) {
        guard case .tus(let endpoint) = record.target else { throw UploadError(.badTarget, "not a tus upload") }
        let host = host(endpoint)
        try record.identity.check(record.path)
        var offset: Int64
        if let url = record.tusURL, let known = try serverOffset(url, host: host, context: context) {
            offset = known
        } else {
            if record.tusURL != nil {
                record.restarts += 1
                context.note(record, "the tus server forgot the upload of \(record.path); starting it over from the first byte")
            }
            record.tusURL = try create(endpoint, record: record, host: host, context: context)
            offset = 0
        }
        record.bytesDone = offset
        try context.save(record)
        let url = record.tusURL!
        let reader = try FilePieceReader(path: record.path)
        while offset < record.identity.size {
            try context.checkpoint(record.id)
            try record.identity.check(record.path)
            let body = try reader.read(offset..<min(record.identity.size, offset + Self.piece))
            context.rate.consume(body.count)
            let reply = try context.transport.send(.PATCH, url: url,
                                                   headers: headers(context, [("Upload-Offset", String(offset)), ("Content-Type", "application/offset+octet-stream")]),
                                                   body: .bytes(body), host: host)
            if reply.status == 404 || reply.status == 410 { throw UploadError(.forgotten, "the tus server no longer knows the upload") }
            guard reply.status == 204 || reply.status == 200, let next = reply.header("Upload-Offset").flatMap({ Int64($0) }) else {
                if reply.status == 409 { throw UploadError(.transient, "the tus server's offset moved (409); asking it again") }
                throw UploadError(.permanent, "\(host) refused a PATCH: HTTP \(reply.status)")
            }
            offset = next
            record.bytesDone = offset
            record.attempts = 0
            try context.save(record)
        }
        // The last PATCH's answer is the server's offset: every byte confirmed (a finished upload
        // may no longer answer HEAD on some servers).
        record.verified = offset == record.identity.size
        record.objectURL = UploadTarget.redact(url)
        record.state = .completed
    }

    /// The server's offset for `url`; nil when it no longer knows the upload.
    private func serverOffset(_ url: String, host: String, context: UploadContext) throws(UploadError) -> Int64? {
        let reply = try context.transport.send(.HEAD, url: url, headers: headers(context, []), body: nil, host: host)
        if reply.status == 404 || reply.status == 410 || reply.status == 403 { return nil }
        guard reply.status == 200 || reply.status == 204, let offset = reply.header("Upload-Offset").flatMap({ Int64($0) }) else {
            throw UploadError(.permanent, "\(host) answered HEAD with HTTP \(reply.status) and no Upload-Offset: is it a tus 1.0 server?")
        }
        return offset
    }

    private func create(_ endpoint: String, record: UploadRecord, host: String, context: UploadContext) throws(UploadError) -> String {
        let name = Data((record.path as NSString).lastPathComponent.utf8).base64EncodedString()
        let reply = try context.transport.send(.POST, url: endpoint,
                                               headers: headers(context, [("Upload-Length", String(record.identity.size)),
                                                                          ("Upload-Metadata", "filename \(name)"), ("Content-Length", "0")]),
                                               body: nil, host: host)
        guard reply.status == 201, let location = reply.header("Location"),
              let url = URL(string: location, relativeTo: URL(string: endpoint))?.absoluteString else {
            throw UploadError(.permanent, "\(host) did not create a tus upload (HTTP \(reply.status)): check the tus+URL and the server")
        }
        return url
    }

    func abandon(_ record: UploadRecord, context: UploadContext) throws(UploadError) {
        guard case .tus(let endpoint) = record.target, let url = record.tusURL else { return }
        _ = try context.transport.send(.DELETE, url: url, headers: headers(context, []), body: nil, host: host(endpoint))
    }
}
