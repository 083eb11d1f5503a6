#pragma once

// OpenSSL's libcrypto (S3 signatures and digests, sealed archive pieces, the native password
// scramble), loaded at its first use.
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include "recovery/libs/lazy_library.h"

namespace binrecover::recovery::libs {

// clang-format off
#define BINRECOVER_CRYPTO_FUNCTIONS(X) \
  X(EVP_CIPHER_CTX_ctrl) \
  X(EVP_CIPHER_CTX_free) \
  X(EVP_CIPHER_CTX_new) \
  X(EVP_DecryptFinal_ex) \
  X(EVP_DecryptInit_ex) \
  X(EVP_DecryptUpdate) \
  X(EVP_Digest) \
  X(EVP_DigestFinal_ex) \
  X(EVP_DigestInit_ex) \
  X(EVP_DigestUpdate) \
  X(EVP_EncodeBlock) \
  X(EVP_EncryptFinal_ex) \
  X(EVP_EncryptInit_ex) \
  X(EVP_EncryptUpdate) \
  X(EVP_MD_CTX_free) \
  X(EVP_MD_CTX_new) \
  X(EVP_aes_256_gcm) \
  X(EVP_md5) \
  X(EVP_sha256) \
  X(HMAC) \
  X(RAND_bytes) \
  X(SHA1)
// clang-format on

struct CryptoApi {
  BINRECOVER_CRYPTO_FUNCTIONS(BINRECOVER_API_MEMBER)
};

// Loads the library on the first call (thread-safe); throws an Error if it cannot.
const CryptoApi& crypto();

}  // namespace binrecover::recovery::libs
