import RecordKitMedia

/// Test pictures for the encoder tests: BGR0 (320x240 unless told), converted by `encoder`.
enum TestPictures {
    /// A picture that differs from every other index: a gradient shifted by `index` and a square.
    static func pattern(_ index: Int, encoder: VideoEncoder, width: Int = 320, height: Int = 240) throws -> ConvertedPicture {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let sx = (index * 37) % (width - 64), sy = (index * 23) % (height - 64)
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * 4
                let inSquare = x >= sx && x < sx + 64 && y >= sy && y < sy + 64
                pixels[o] = inSquare ? 255 : UInt8((x + index * 5) & 0xFF)
                pixels[o + 1] = inSquare ? 40 : UInt8((y + index * 3) & 0xFF)
                pixels[o + 2] = inSquare ? 200 : UInt8((x + y) / 4 & 0xFF)
            }
        }
        return try pixels.withUnsafeBytes { raw throws(MediaError) -> ConvertedPicture in
            try encoder.convert(bgr0: raw.baseAddress!, bytesPerRow: width * 4, width: width, height: height)
        }
    }
}
