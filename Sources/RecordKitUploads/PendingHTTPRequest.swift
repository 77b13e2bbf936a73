import CCurl

/// One request of an ``HTTPTransport``: its libcurl handle, header list and body while it runs,
/// then its ``outcome``. Made by ``HTTPTransport/start(_:url:headers:body:timeout:)``, handed
/// to ``HTTPTransport/wait(_:host:)``.
///
/// `@unchecked Sendable`: everything but ``outcome`` is touched only by ``CurlMulti`` under the
/// transport's lock (libcurl calls the callbacks inside `curl_multi_perform`, which runs
/// there), and ``outcome`` is read only after the lock saw the request end.
package final class PendingHTTPRequest: @unchecked Sendable {
    /// What a finished request came to.
    struct Outcome: Sendable {
        var code: CURLcode = CURLE_OK
        /// libcurl's error text: matched for a description, never shown.
        var detail = ""
        /// The system's errno behind a failed connect or transfer (0: none).
        var osErrno: Int32 = 0
        var status = 0
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
        /// What a streamed body's `fill` threw.
        var bodyError: UploadError?
    }

    let method: HTTPMethod
    private(set) var outcome = Outcome()
    private(set) var isDone = false
    private let body: HTTPRequestBody?
    private var bodyOffset = 0
    private(set) var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    init(method: HTTPMethod, headers: [(String, String)], body: HTTPRequestBody?) {
        self.method = method
        self.body = body
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        // "Expect:" with no value: libcurl sends no `Expect: 100-continue` (one round trip and,
        // with some servers, a second's wait before every part).
        for (name, value) in headers + [("Expect", "")] {
            headerList = curl_slist_append(headerList, "\(name):\(value.isEmpty ? "" : " " + value)")
        }
    }

    deinit {
        release()
        errorBuffer.deallocate()
    }

    /// The body's length for libcurl: -1 for none (GET, HEAD, DELETE), 0 for an empty one.
    private var bodyLength: Int64 {
        switch body {
        case .bytes(let bytes): return Int64(bytes.count)
        case .stream(let length, _): return length
        case nil: return [.GET, .HEAD, .DELETE].contains(method) ? -1 : 0
        }
    }

    /// A new libcurl handle for `url` with every option set; nil (and the request ended) when
    /// libcurl refuses it.
    func makeHandle(url: String, connectTimeout: Int, idleTimeout: Int, timeout: Int?) -> UnsafeMutableRawPointer? {
        guard let handle = curl_easy_init() else {
            end(CURLE_FAILED_INIT)
            return nil
        }
        easy = handle
        let context = Unmanaged.passUnretained(self).toOpaque()
        let code = rk_curl_prepare(
            handle, method.rawValue, url, headerList, bodyLength, context,
            { buffer, size, count, context in
                let request = Unmanaged<PendingHTTPRequest>.fromOpaque(context!).takeUnretainedValue()
                request.outcome.body.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: size * count))
                return size * count
            },
            { buffer, size, count, context in
                let request = Unmanaged<PendingHTTPRequest>.fromOpaque(context!).takeUnretainedValue()
                request.headerLine(UnsafeRawBufferPointer(start: buffer, count: size * count))
                return size * count
            },
            { buffer, size, count, context in
                let request = Unmanaged<PendingHTTPRequest>.fromOpaque(context!).takeUnretainedValue()
                return request.fill(UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
            },
            errorBuffer, connectTimeout, idleTimeout, timeout.map { $0 * 1000 } ?? 0)
        guard code == CURLE_OK else {
            end(code)
            return nil
        }
        return handle
    }

    /// One line of the response head: a status line starts the headers over (a `100 Continue`
    /// comes before the real response).
    private func headerLine(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            outcome.headers = []
        } else if let colon = line.firstIndex(of: ":") {
            outcome.headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
    }

    /// The next bytes of the body into `buffer`.
    private func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        switch body {
        case .bytes(let bytes):
            let n = min(buffer.count, bytes.count - bodyOffset)
            bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + bodyOffset, byteCount: n) }
            bodyOffset += n
            return n
        case .stream(_, let fill):
            do {
                return try fill(buffer)
            } catch {
                outcome.bodyError = error
                return Int(CURL_READFUNC_ABORT)
            }
        case nil:
            return 0
        }
    }

    /// Ends the request with libcurl's `code`, reading the status from its handle, and frees
    /// the handle (which the multi handle must no longer hold).
    func end(_ code: CURLcode) {
        outcome.code = code
        outcome.detail = String(cString: errorBuffer)
        if let easy {
            outcome.status = rk_curl_response_code(easy)
            outcome.osErrno = Int32(truncatingIfNeeded: rk_curl_os_errno(easy))
        }
        release()
        isDone = true
    }

    private func release() {
        if let easy { curl_easy_cleanup(easy) }
        easy = nil
        curl_slist_free_all(headerList)
        headerList = nil
    }
}
