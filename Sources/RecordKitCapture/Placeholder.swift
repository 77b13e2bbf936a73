import RecordKit
