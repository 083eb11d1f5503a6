#include "recovery/storage/s3.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "binlog/error.h"
#include "recovery/storage/s3_archive.h"

namespace binrecover::recovery::s3 {
namespace {

// AWS's published examples of Signature Version 4 for S3 ("Signature Calculations for the
// Authorization Header: Transferring Payload in a Single Chunk"): key AKIAIOSFODNN7EXAMPLE,
// bucket examplebucket, 2013-05-24, us-east-1.
SignInput example() {
  SignInput in;
  in.host = "examplebucket.s3.amazonaws.com";
  in.amz_date = "20130524T000000Z";
  in.region = "us-east-1";
  in.access_key = "AKIAIOSFODNN7EXAMPLE";
  in.secret_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  in.payload_sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  return in;
}

std::string signature(const std::string& auth) { return auth.substr(auth.rfind('=') + 1); }

TEST(S3Sign, GetObjectWithRange) {
  SignInput in = example();
  in.method = "GET";
  in.path = "/test.txt";
  in.headers = {{"Host", in.host},
                {"Range", "bytes=0-9"},
                {"x-amz-content-sha256", in.payload_sha256},
                {"x-amz-date", in.amz_date}};
  const std::string auth = sigv4_authorization(in);
  EXPECT_EQ(auth,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(S3Sign, PutObjectWithPayload) {
  SignInput in = example();
  in.method = "PUT";
  in.path = "/test$file.text";
  const std::string body = "Welcome to Amazon S3.";
  in.payload_sha256 = sha256_hex({reinterpret_cast<const std::byte*>(body.data()), body.size()});
  EXPECT_EQ(in.payload_sha256, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  in.headers = {{"Host", in.host},
                {"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                {"x-amz-content-sha256", in.payload_sha256},
                {"x-amz-date", in.amz_date},
                {"x-amz-storage-class", "REDUCED_REDUNDANCY"}};
  EXPECT_EQ(signature(sigv4_authorization(in)),
            "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(S3Sign, QueryParametersSortedAndEncoded) {
  SignInput in = example();
  in.method = "GET";
  in.path = "/";
  in.query = {{"prefix", "J"}, {"max-keys", "2"}};  // (given out of order)
  in.headers = {
      {"host", in.host}, {"x-amz-content-sha256", in.payload_sha256}, {"x-amz-date", in.amz_date}};
  EXPECT_EQ(signature(sigv4_authorization(in)),
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
  in.query = {{"lifecycle", ""}};
  EXPECT_EQ(signature(sigv4_authorization(in)),
            "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(S3Url, ParseAndEncode) {
  const Url u = parse_url("s3://my-bucket/a/b c/mysql-bin.000001");
  EXPECT_EQ(u.bucket, "my-bucket");
  EXPECT_EQ(u.key, "a/b c/mysql-bin.000001");
  EXPECT_EQ(parse_url("s3://bkt").key, "");
  EXPECT_THROW(parse_url("s3://ab/x"), Error);        // too short
  EXPECT_THROW(parse_url("s3://Bucket/x"), Error);    // upper case
  EXPECT_THROW(parse_url("s3://-bucket/x"), Error);   // starts with '-'
  EXPECT_THROW(parse_url("http://bucket/x"), Error);  // not s3://
  EXPECT_EQ(uri_encode("a b/c~d%e+f", true), "a%20b/c~d%25e%2Bf");
  EXPECT_EQ(uri_encode("a/b", false), "a%2Fb");
}

class S3ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/binrecover-s3cfg-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name) << text;
  }
  Config load(const ConfigOverrides& o = {}) {
    return load_config(o, [this](const char* n) -> std::optional<std::string> {
      auto it = env_.find(n);
      if (it == env_.end()) return std::nullopt;
      return it->second;
    });
  }
  std::string dir_;
  std::map<std::string, std::string> env_;
};

TEST_F(S3ConfigTest, EnvironmentFirst) {
  env_ = {{"HOME", dir_},
          {"AWS_ACCESS_KEY_ID", "AK"},
          {"AWS_SECRET_ACCESS_KEY", "SK"},
          {"AWS_SESSION_TOKEN", "TOK"},
          {"AWS_REGION", "eu-west-3"},
          {"AWS_ENDPOINT_URL", "http://127.0.0.1:9000"}};
  write("credentials", "[default]\naws_access_key_id = FILE\naws_secret_access_key = FILE\n");
  const Config c = load();
  EXPECT_EQ(c.access_key, "AK");
  EXPECT_EQ(c.secret_key, "SK");
  EXPECT_EQ(c.session_token, "TOK");
  EXPECT_EQ(c.region, "eu-west-3");
  EXPECT_EQ(c.endpoint, "http://127.0.0.1:9000");
  env_["AWS_ENDPOINT_URL_S3"] = "https://s3.example:8443";
  EXPECT_EQ(load().endpoint, "https://s3.example:8443");
  ConfigOverrides o;
  o.endpoint = "http://10.0.0.1";
  EXPECT_EQ(load(o).endpoint, "http://10.0.0.1");
}

TEST_F(S3ConfigTest, ProfilesFromTheAwsFiles) {
  mkdir((dir_ + "/.aws").c_str(), 0700);
  write(".aws/credentials",
        "[default]\naws_access_key_id = DEF\naws_secret_access_key = DEFSECRET\n\n"
        "[backup]\naws_access_key_id=BAK\naws_secret_access_key=BAKSECRET\n"
        "aws_session_token = BAKTOKEN\n");
  write(".aws/config",
        "[default]\nregion = us-west-2\n\n[profile backup]\nregion = ap-south-1\n"
        "endpoint_url = http://rgw.internal:7480\ns3 =\n  addressing_style = path\n");
  env_ = {{"HOME", dir_}};
  Config c = load();
  EXPECT_EQ(c.access_key, "DEF");
  EXPECT_EQ(c.region, "us-west-2");
  EXPECT_EQ(c.endpoint, "https://s3.us-west-2.amazonaws.com");
  EXPECT_EQ(c.addressing, Addressing::kAuto);
  env_["AWS_PROFILE"] = "backup";
  c = load();
  EXPECT_EQ(c.access_key, "BAK");
  EXPECT_EQ(c.secret_key, "BAKSECRET");
  EXPECT_EQ(c.session_token, "BAKTOKEN");
  EXPECT_EQ(c.region, "ap-south-1");
  EXPECT_EQ(c.endpoint, "http://rgw.internal:7480");
  EXPECT_EQ(c.addressing, Addressing::kPath);
  ConfigOverrides o;
  o.profile = "nosuch";
  EXPECT_THROW(load(o), Error);
  o.profile.reset();
  o.endpoint = "rgw.internal:7480";  // no scheme
  EXPECT_THROW(load(o), Error);
}

TEST(S3Manifest, RoundTripAndDamage) {
  Manifest m;
  m.server_id = 7;
  m.flavor = "mysql";
  m.server_uuid = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
  ArchivedFile a;
  a.name = "binlog.000001";
  a.size = 30;
  a.complete = true;
  a.pieces = {{0, 10, "", "aa", false}, {10, 20, "", "bb", false}};
  a.next = "binlog.000002";
  ArchivedFile b;
  b.name = "binlog.000002";
  b.size = 4;
  b.pieces = {{0, 4, "f/.active/binlog.000002/0000000000000000-4", "cc", true}};
  m.files = {a, b};
  const Manifest back = Manifest::from_json(m.to_json(), "test");
  ASSERT_EQ(back.files.size(), 2U);
  EXPECT_EQ(back.files[0].next, "binlog.000002");
  EXPECT_TRUE(back.files[0].complete);
  EXPECT_TRUE(back.files[1].pieces[0].sealed);
  EXPECT_EQ(back.server_uuid, m.server_uuid);
  EXPECT_EQ(back.to_json(), m.to_json());
  // A gap between pieces, pieces not adding up to the size, a name with a '/', not JSON.
  Manifest gap = m;
  gap.files[0].pieces[1].offset = 11;
  EXPECT_THROW(Manifest::from_json(gap.to_json(), "test"), Error);
  Manifest sz = m;
  sz.files[0].size = 31;
  EXPECT_THROW(Manifest::from_json(sz.to_json(), "test"), Error);
  Manifest bad = m;
  bad.files[0].name = "../etc/passwd";
  EXPECT_THROW(Manifest::from_json(bad.to_json(), "test"), Error);
  EXPECT_THROW(Manifest::from_json("{\"format\": 1, \"files\": [", "test"), Error);
  EXPECT_THROW(Manifest::from_json("{\"format\": 2, \"files\": []}", "test"), Error);
}

}  // namespace
}  // namespace binrecover::recovery::s3
