// The system's OpenSSL libcrypto (Debian: libssl-dev): the EVP digests and one-shot HMAC that
// RecordKitDigest wraps. Only interfaces OpenSSL 3 does not deprecate.
#include <openssl/evp.h>
#include <openssl/hmac.h>
